import Foundation

/// The completion handler of `kf.setImage`, run on the main actor.
public typealias ImageSettingCompletionHandler = @MainActor @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void

@MainActor
extension KingfisherWrapper where Base: KingfisherImageSettable {
    // MARK: Setting an image

    /// Loads the image of `source` through ``KingfisherManager/shared`` and shows it on the target.
    ///
    /// The flow, in order:
    /// - A `nil` source shows `placeholder` (or clears the target), forgets the running request
    ///   and fails with `.imageSettingError(.emptySource)`.
    /// - Otherwise `placeholder` is shown (a `nil` one clears the target) unless
    ///   `.keepCurrentImageWhileLoading` is set and the target shows something; the indicator
    ///   starts; the request gets a new ``Source/Identifier`` and becomes the one the target waits for.
    /// - A newer `setImage` on the same target supersedes this request: it does not cancel its
    ///   download (call ``cancelDownloadTask()`` for that), but the request stops before any
    ///   retry, alternative source, download or memory-cache promotion still ahead of it, and its
    ///   completion fails with `.imageSettingError(.notCurrentSourceTask)` carrying the result or
    ///   error, without touching the target.
    /// - On success the image is shown (through the `.transition` for downloaded or provided
    ///   images, or for every image with `.forceTransition`) and the placeholder removed; on
    ///   failure `.onFailureImage` is shown when given.
    ///
    /// `progressBlock` and `completionHandler` run on the main actor; the indicator stops once
    /// per request, before the image shows. A memory hit finishes before this returns, unless
    /// `.asyncCacheTypeCheck` is set. The options' `callbackQueue` is not used.
    ///
    /// - Returns: The task of the request, or `nil` when it finished (or failed) at once.
    @discardableResult
    public func setImage(
        with source: Source?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(
            with: source, placeholder: placeholder,
            parsedOptions: KingfisherParsedOptionsInfo(KingfisherManager.shared.defaultOptions + (options ?? [])),
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads and shows the image of `source`; the form without progress, so a trailing closure
    /// is the completion handler. See ``setImage(with:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_)``.
    @discardableResult
    public func setImage(
        with source: Source?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: source, placeholder: placeholder, options: options, progressBlock: nil,
                 completionHandler: completionHandler)
    }

    /// Loads and shows the image of `resource` (a `URL` is one); a file URL is read from disk.
    ///
    /// The same as the `Source` form with `resource?.convertToSource()`.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: resource?.convertToSource(), placeholder: placeholder, options: options,
                 progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads and shows the image of `resource`; the form without progress.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: resource?.convertToSource(), placeholder: placeholder, options: options,
                 progressBlock: nil, completionHandler: completionHandler)
    }

    /// Loads and shows the image `provider` supplies.
    ///
    /// The same as the `Source` form with `.provider(provider)`.
    @discardableResult
    public func setImage(
        with provider: (any ImageDataProvider)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: provider.map { Source.provider($0) }, placeholder: placeholder, options: options,
                 progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads and shows the image `provider` supplies; the form without progress.
    @discardableResult
    public func setImage(
        with provider: (any ImageDataProvider)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: provider.map { Source.provider($0) }, placeholder: placeholder, options: options,
                 progressBlock: nil, completionHandler: completionHandler)
    }

    // MARK: The target's loading state

    /// Cancels the running request's work; its completion fails with `.requestError(.taskCancelled)`
    /// (and shows `.onFailureImage` if given). Does nothing when no request runs.
    public func cancelDownloadTask() {
        base.kingfisherState.imageTask?.cancel()
    }

    /// The identifier of the request the target waits for; `nil` when none runs.
    public var taskIdentifier: Source.Identifier.Value? {
        base.kingfisherState.taskIdentifier
    }

    /// The placeholder the target shows now, if any.
    public var placeholder: (any Placeholder)? {
        base.kingfisherState.placeholder
    }

    /// The kind of indicator shown while loading; setting it makes the indicator with the
    /// target's ``KingfisherImageSettable/makeIndicator(for:)``. Default `.none`.
    public var indicatorType: IndicatorType {
        get { base.kingfisherState.indicatorType }
        nonmutating set {
            base.kingfisherState.indicatorType = newValue
            indicator = base.makeIndicator(for: newValue)
        }
    }

    /// The indicator shown while loading, made for ``indicatorType``; read-only, as in Kingfisher:
    /// set ``indicatorType`` (`.custom(indicator:)` for your own) to change it.
    public internal(set) var indicator: (any Indicator)? {
        get { base.kingfisherState.indicator }
        // Replacing it takes the old one off the target and puts the new one on.
        nonmutating set {
            let state = base.kingfisherState
            if let old = state.indicator { base.removeIndicator(old) }
            state.indicator = newValue
            if let newValue { base.addIndicator(newValue) }
        }
    }
}
