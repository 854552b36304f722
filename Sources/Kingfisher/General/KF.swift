import Foundation

extension KF {
    /// A builder for the image of `source`; `nil` makes `set(to:)` fail with `.emptySource`.
    public static func source(_ source: Source?) -> KF.Builder {
        Builder(source: source)
    }

    /// A builder for the image of `resource`; a file URL is read from disk.
    public static func resource(_ resource: (any Resource)?) -> KF.Builder {
        source(resource?.convertToSource())
    }

    /// A builder for the image at `url`, cached under `cacheKey` (default: the URL's absolute string).
    public static func url(_ url: URL?, cacheKey: String? = nil) -> KF.Builder {
        source(url?.convertToSource(overrideCacheKey: cacheKey))
    }

    /// A builder for the image `provider` supplies.
    public static func dataProvider(_ provider: (any ImageDataProvider)?) -> KF.Builder {
        source(provider.map { Source.provider($0) })
    }

    /// A builder for the image encoded in `data`, cached under `cacheKey`.
    public static func data(_ data: Data?, cacheKey: String) -> KF.Builder {
        dataProvider(data.map { RawImageDataProvider(data: $0, cacheKey: cacheKey) })
    }
}

extension KF {
    /// Collects a source, options, a placeholder and callbacks in a chain, then loads onto a
    /// target with ``set(to:)``:
    ///
    /// ```swift
    /// KF.url(url)
    ///     .placeholder(placeholderImage)
    ///     .downsampling(size: CGSize(width: 120, height: 120))
    ///     .fade(duration: 0.25)
    ///     .onSuccess { result in print(result.cacheType) }
    ///     .set(to: imageView)
    /// ```
    ///
    /// Each setter changes the builder and returns it. The options start from the shared
    /// manager's `defaultOptions` and end up exactly as the equivalent option list would parse.
    @MainActor
    public final class Builder: KFOptionSetter {
        /// Where the image comes from.
        public let source: Source?
        /// The options collected so far.
        public var options: KingfisherParsedOptionsInfo
        /// The placeholder shown while loading.
        public private(set) var placeholder: (any Placeholder)?
        /// Kingfisher's slot for a failure callback; run after the ``onFailure(_:)`` handlers.
        public let onFailureDelegate = Delegate<KingfisherError, Void>()
        /// Kingfisher's slot for a success callback; run after the ``onSuccess(_:)`` handlers.
        public let onSuccessDelegate = Delegate<RetrieveImageResult, Void>()
        /// Kingfisher's slot for a progress callback; run after the ``onProgress(_:)`` handlers.
        public let onProgressDelegate = Delegate<(Int64, Int64), Void>()

        private var progressHandlers: [@MainActor @Sendable (Int64, Int64) -> Void] = []
        private var successHandlers: [@MainActor @Sendable (RetrieveImageResult) -> Void] = []
        private var failureHandlers: [@MainActor @Sendable (KingfisherError) -> Void] = []

        nonisolated init(source: Source?) {
            self.source = source
            self.options = KingfisherParsedOptionsInfo(KingfisherManager.shared.defaultOptions)
        }

        /// Shows `placeholder` while loading.
        public func placeholder(_ placeholder: (any Placeholder)?) -> Self {
            self.placeholder = placeholder
            return self
        }

        /// Shows `image` while loading.
        public func placeholder(_ image: KFCrossPlatformImage?) -> Self {
            placeholder = image
            return self
        }

        /// Adds a download-progress handler (main actor); not called for cache hits or providers.
        public func onProgress(_ handler: @escaping @MainActor @Sendable (Int64, Int64) -> Void) -> Self {
            progressHandlers.append(handler)
            return self
        }

        /// Adds a handler for a successful load (main actor).
        public func onSuccess(_ handler: @escaping @MainActor @Sendable (RetrieveImageResult) -> Void) -> Self {
            successHandlers.append(handler)
            return self
        }

        /// Adds a handler for a failed (or superseded) load (main actor).
        public func onFailure(_ handler: @escaping @MainActor @Sendable (KingfisherError) -> Void) -> Self {
            failureHandlers.append(handler)
            return self
        }

        /// Loads the image onto `target` with everything collected, as `target.kf.setImage` does.
        @discardableResult
        public func set<Target: KingfisherImageSettable>(to target: Target) -> DownloadTask? {
            let progress = progressHandlers
            let successes = successHandlers
            let failures = failureHandlers
            let (progressDelegate, successDelegate, failureDelegate) = (onProgressDelegate, onSuccessDelegate, onFailureDelegate)
            var progressBlock: DownloadProgressBlock?
            if !progress.isEmpty || progressDelegate.isSet {
                progressBlock = { @Sendable (received: Int64, total: Int64) in
                    MainActorHop.run {
                        for handler in progress { handler(received, total) }
                        _ = progressDelegate((received, total))
                    }
                }
            }
            return target.kf.setImage(
                with: source, placeholder: placeholder, parsedOptions: options, progressBlock: progressBlock
            ) { result in
                switch result {
                case .success(let value):
                    for handler in successes { handler(value) }
                    _ = successDelegate(value)
                case .failure(let error):
                    for handler in failures { handler(error) }
                    _ = failureDelegate(error)
                }
            }
        }
    }
}

extension KF.Builder {
    /// Shows `image` when the load fails (`nil` clears the target).
    public func onFailureImage(_ image: KFCrossPlatformImage?) -> Self {
        options.onFailureImage = .some(image)
        return self
    }

    /// Keeps the target's current image while loading, instead of the placeholder.
    public func keepCurrentImageWhileLoading(_ enabled: Bool = true) -> Self {
        options.keepCurrentImageWhileLoading = enabled
        return self
    }

    /// Plays `transition` when the loaded image shows.
    public func transition(_ transition: ImageTransition) -> Self {
        options.transition = transition
        return self
    }

    /// Fades the loaded image in over `duration` seconds.
    public func fade(duration: TimeInterval) -> Self {
        options.transition = .fade(duration)
        return self
    }

    /// Plays the transition for cache hits too.
    public func forceTransition(_ enabled: Bool = true) -> Self {
        options.forceTransition = enabled
        return self
    }

    /// Never finishes before `set(to:)` returns, even for a memory hit.
    public func asyncCacheTypeCheck(_ enabled: Bool = true) -> Self {
        options.asyncCacheTypeCheck = enabled
        return self
    }

    /// Shows a progressive JPEG as ``ImageProgressive`` describes.
    public func progressiveJPEG(_ progressive: ImageProgressive? = .default) -> Self {
        options.progressiveJPEG = progressive
        return self
    }
}
