import Foundation
import KingfisherSynchronization

/// Holds a target for closures that leave the main actor and come back to it; the target is only
/// ever touched on the main actor, which this class's isolation enforces.
@MainActor
final class ImageTargetBox<Base: KingfisherImageSettable> {
    let base: Base
    init(_ base: Base) { self.base = base }
}

/// Runs main-actor work from any thread.
enum MainActorHop {
    /// Runs `block` on the main actor: at once when `inline` (the caller is already on it),
    /// otherwise in a later turn of the main queue, in the order of the calls.
    static func run(inline: Bool = false, _ block: @escaping @MainActor @Sendable () -> Void) {
        if inline {
            MainActor.assumeIsolated { block() }
        } else {
            DispatchQueue.main.async { MainActor.assumeIsolated { block() } }
        }
    }
}

/// Tells a callback whether it runs inside the `setImage` call that started it, on that call's
/// thread (so on the main actor), as a memory hit does.
///
/// `Thread.isMainThread` cannot tell: the main actor's jobs do not always run on the thread
/// Foundation calls main.
final class CallerWindow: Sendable {
    private let thread: Mutex<ObjectIdentifier?>

    /// A window open on the calling thread.
    init() {
        thread = Mutex(ObjectIdentifier(Thread.current))
    }

    /// Whether the window is open and this is its thread.
    var isInside: Bool {
        thread.withLock { $0 == ObjectIdentifier(Thread.current) }
    }

    /// Closes the window: later callbacks are not inside the call.
    func close() {
        thread.withLock { $0 = nil }
    }
}

@MainActor
extension KingfisherWrapper where Base: KingfisherImageSettable {
    /// The flow of every `setImage`: options already parsed, the manager's defaults included.
    func setImage(
        with source: Source?,
        placeholder: (any Placeholder)?,
        parsedOptions: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock?,
        completionHandler: (@MainActor @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        let state = base.kingfisherState
        guard let source else {
            replacePlaceholder(with: placeholder, clearingWhenNil: true)
            state.taskIdentifier = nil
            state.imageTask = nil
            completionHandler?(.failure(.imageSettingError(reason: .emptySource)))
            return nil
        }

        var options = parsedOptions
        let showsNothing = base.getImage() == nil && state.placeholder == nil
        if !options.keepCurrentImageWhileLoading || showsNothing {
            replacePlaceholder(with: placeholder, clearingWhenNil: true)
        }

        let indicator = state.indicator
        indicator?.startAnimatingView()

        let issued = Source.Identifier.next()
        state.taskIdentifier = issued
        state.imageTask = nil
        options.callbackQueue = .untouch
        options.sourceTaskIdentifierChecker = { state.isCurrent(issued) }
        options.lazyAnimationFrames = !base.shouldPreloadAllAnimation()

        var progress: DownloadProgressBlock?
        if let progressBlock {
            progress = { @Sendable (received: Int64, total: Int64) in
                MainActorHop.run {
                    if state.isCurrent(issued) { progressBlock(received, total) }
                }
            }
        }
        let box = ImageTargetBox(base)
        let window = CallerWindow()
        if options.asyncCacheTypeCheck { window.close() }
        if let progressive = options.progressiveJPEG {
            let displayOptions = options
            options.progressiveImageSetter = { image in
                MainActorHop.run {
                    // The final image clears the identifier first, so nothing partial follows it.
                    guard state.isCurrent(issued) else { return }
                    switch progressive.onImageUpdated?(image) ?? .default {
                    case .default: box.base.setImage(image, options: displayOptions)
                    case .keepCurrent: return
                    case .replace(let replacement): box.base.setImage(replacement, options: displayOptions)
                    }
                    box.base.kf.replacePlaceholder(with: nil, clearingWhenNil: false)
                }
            }
        }
        let finalOptions = options
        let task = KingfisherManager.shared.retrieveImage(
            with: source, parsedOptions: options, progressBlock: progress,
            downloadTaskUpdated: { task in
                MainActorHop.run {
                    if state.isCurrent(issued) { state.imageTask = task }
                }
            },
            completionHandler: { result in
                MainActorHop.run(inline: window.isInside) {
                    indicator?.stopAnimatingView()
                    box.base.kf.finish(
                        result, issued: issued, source: source, options: finalOptions,
                        completionHandler: completionHandler)
                }
            }
        )
        window.close()
        if state.isCurrent(issued) { state.imageTask = task }
        return task
    }

    /// Shows the result of request `issued` on the target, unless a newer request superseded it.
    private func finish(
        _ result: Result<RetrieveImageResult, KingfisherError>,
        issued: Source.Identifier.Value,
        source: Source,
        options: KingfisherParsedOptionsInfo,
        completionHandler: (@MainActor @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) {
        let state = base.kingfisherState
        guard state.isCurrent(issued) else {
            let reason: KingfisherError.ImageSettingErrorReason
            switch result {
            case .success(let value): reason = .notCurrentSourceTask(result: value, error: nil, source: source)
            case .failure(let error): reason = .notCurrentSourceTask(result: nil, error: error, source: source)
            }
            completionHandler?(.failure(.imageSettingError(reason: reason)))
            return
        }
        state.imageTask = nil
        state.taskIdentifier = nil

        switch result {
        case .success(let value):
            let transition = options.transition
            guard transition.applies(to: value.cacheType, forceTransition: options.forceTransition) else {
                base.setImage(value.image, options: options)
                replacePlaceholder(with: nil, clearingWhenNil: false)
                completionHandler?(result)
                return
            }
            let target = base
            let timeline = ImageTransitionTimeline(
                transition: transition, image: value.image,
                showImage: {
                    if case .custom(_, _, let animations?, _) = transition {
                        animations(target, value.image)
                    } else {
                        target.setImage(value.image, options: options)
                    }
                    target.kf.replacePlaceholder(with: nil, clearingWhenNil: false)
                },
                onFinish: { finished in
                    if case .custom(_, _, _, let completion?) = transition { completion(finished) }
                    completionHandler?(result)
                })
            base.runTransition(timeline)
        case .failure:
            if let image = options.onFailureImage {
                replacePlaceholder(with: nil, clearingWhenNil: false)
                base.setImage(image, options: options)
            }
            completionHandler?(result)
        }
    }

    /// Takes the shown placeholder off and shows `placeholder`; with no new placeholder and
    /// `clearingWhenNil`, the target's image is cleared too. An image placeholder already replaced
    /// by a loaded image (`clearingWhenNil == false`) is only forgotten, so an image equal to the
    /// placeholder is never cleared.
    func replacePlaceholder(with placeholder: (any Placeholder)?, clearingWhenNil: Bool) {
        let state = base.kingfisherState
        if let old = state.placeholder {
            state.placeholder = nil
            if clearingWhenNil || !(old is KFCrossPlatformImage) {
                old.remove(from: base)
            }
        }
        if let placeholder {
            state.placeholder = placeholder
            placeholder.add(to: base)
        } else if clearingWhenNil {
            base.setImage(nil, options: KingfisherParsedOptionsInfo(nil))
        }
    }
}
