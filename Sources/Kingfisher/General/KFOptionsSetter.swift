import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A chain of option setters over ``KingfisherParsedOptionsInfo``, used by ``KF/Builder``.
///
/// Every setter changes ``options`` as the matching ``KingfisherOptionsInfoItem`` would when
/// parsed (the later call wins) and returns `self`. The processor setters that are sugar for a
/// processor (``roundCorner(radius:targetSize:roundingCorners:backgroundColor:)``, ``blur(radius:)``,
/// ``downsampling(size:)``...) append to the processor already set.
///
/// Each setter works on ``copyForMutation()`` and returns it; the default returns `self`, so the
/// chain changes one object, as in Kingfisher.
@MainActor
public protocol KFOptionSetter: AnyObject {
    /// The options collected so far.
    var options: KingfisherParsedOptionsInfo { get set }

    /// Called with the error of a failed load, after the `onFailure` handlers.
    var onFailureDelegate: Delegate<KingfisherError, Void> { get }
    /// Called with the result of a successful load, after the `onSuccess` handlers.
    var onSuccessDelegate: Delegate<RetrieveImageResult, Void> { get }
    /// Called with the bytes received and expected as a download goes, after the `onProgress` handlers.
    var onProgressDelegate: Delegate<(Int64, Int64), Void> { get }

    /// The object a setter changes and returns.
    func copyForMutation() -> Self
}

extension KFOptionSetter {
    /// `self`: setters change this object.
    public func copyForMutation() -> Self {
        self
    }

    private func with(_ change: (inout KingfisherParsedOptionsInfo) -> Void) -> Self {
        let result = copyForMutation()
        change(&result.options)
        return result
    }

    // MARK: Cache

    /// `.targetCache(cache)`.
    public func targetCache(_ cache: ImageCache) -> Self { with { $0.targetCache = cache } }
    /// `.originalCache(cache)`.
    public func originalCache(_ cache: ImageCache) -> Self { with { $0.originalCache = cache } }
    /// `.forceRefresh` when `enabled`.
    public func forceRefresh(_ enabled: Bool = true) -> Self { with { $0.forceRefresh = enabled } }
    /// `.fromMemoryCacheOrRefresh` when `enabled`.
    public func fromMemoryCacheOrRefresh(_ enabled: Bool = true) -> Self { with { $0.fromMemoryCacheOrRefresh = enabled } }
    /// `.cacheMemoryOnly` when `enabled`.
    public func cacheMemoryOnly(_ enabled: Bool = true) -> Self { with { $0.cacheMemoryOnly = enabled } }
    /// `.waitForCache` when `enabled`.
    public func waitForCache(_ enabled: Bool = true) -> Self { with { $0.waitForCache = enabled } }
    /// `.onlyFromCache` when `enabled`.
    public func onlyFromCache(_ enabled: Bool = true) -> Self { with { $0.onlyFromCache = enabled } }
    /// `.cacheOriginalImage` when `enabled`.
    public func cacheOriginalImage(_ enabled: Bool = true) -> Self { with { $0.cacheOriginalImage = enabled } }
    /// `.loadDiskFileSynchronously` when `enabled`.
    public func loadDiskFileSynchronously(_ enabled: Bool = true) -> Self { with { $0.loadDiskFileSynchronously = enabled } }
    /// `.diskStoreWriteOptions(writeOptions)`.
    public func diskStoreWriteOptions(_ writeOptions: Data.WritingOptions) -> Self { with { $0.diskStoreWriteOptions = writeOptions } }
    /// `.memoryCacheExpiration(expiration)`.
    public func memoryCacheExpiration(_ expiration: StorageExpiration?) -> Self { with { $0.memoryCacheExpiration = expiration } }
    /// `.memoryCacheAccessExtendingExpiration(extending)`.
    public func memoryCacheAccessExtending(_ extending: ExpirationExtending) -> Self {
        with { $0.memoryCacheAccessExtendingExpiration = extending }
    }
    /// `.diskCacheExpiration(expiration)`.
    public func diskCacheExpiration(_ expiration: StorageExpiration?) -> Self { with { $0.diskCacheExpiration = expiration } }
    /// `.diskCacheAccessExtendingExpiration(extending)`.
    public func diskCacheAccessExtending(_ extending: ExpirationExtending) -> Self {
        with { $0.diskCacheAccessExtendingExpiration = extending }
    }
    /// `.forcedCacheFileExtension(pathExtension)`.
    public func forcedCacheFileExtension(_ pathExtension: String?) -> Self { with { $0.forcedExtension = pathExtension } }
    /// `.cacheSerializer(serializer)`.
    public func cacheSerializer(_ serializer: any CacheSerializer) -> Self { with { $0.cacheSerializer = serializer } }
    /// A ``FormatIndicatedCacheSerializer`` for `format` (JPEG at `jpegCompressionQuality` when
    /// given; AVIF at quality 0.9; JPEG XL and WebP lossless); a format without one (unknown, or
    /// HEIC, which Kingfisher cannot encode) keeps the ``DefaultCacheSerializer``.
    public func serialize(as format: ImageFormat, jpegCompressionQuality: CGFloat? = nil) -> Self {
        with { options in
            switch format {
            case .PNG: options.cacheSerializer = FormatIndicatedCacheSerializer.png
            case .JPEG:
                options.cacheSerializer = jpegCompressionQuality.map { FormatIndicatedCacheSerializer.jpeg(compressionQuality: $0) }
                    ?? FormatIndicatedCacheSerializer.jpeg
            case .GIF: options.cacheSerializer = FormatIndicatedCacheSerializer.gif
            case .WebP: options.cacheSerializer = FormatIndicatedCacheSerializer.webp
            case .AVIF: options.cacheSerializer = FormatIndicatedCacheSerializer.avif
            case .JXL: options.cacheSerializer = FormatIndicatedCacheSerializer.jxl
            case .unknown, .HEIC: options.cacheSerializer = DefaultCacheSerializer.default
            }
        }
    }
    /// `.cacheSerializer(cacheSerializer)`: Kingfisher's other name for ``cacheSerializer(_:)``.
    public func serialize(by cacheSerializer: any CacheSerializer) -> Self { with { $0.cacheSerializer = cacheSerializer } }
    /// `.alsoPrefetchToMemory` when `enabled`.
    public func alsoPrefetchToMemory(_ enabled: Bool = true) -> Self { with { $0.alsoPrefetchToMemory = enabled } }

    // MARK: Network

    /// `.downloader(downloader)`.
    public func downloader(_ downloader: ImageDownloader) -> Self { with { $0.downloader = downloader } }
    /// `.downloadPriority(priority)`.
    public func downloadPriority(_ priority: Float) -> Self {
        with { $0.downloadPriority = priority.isFinite ? priority : ImageDownloader.defaultDownloadPriority }
    }
    /// `.requestModifier(modifier)`.
    public func requestModifier(_ modifier: any AsyncImageDownloadRequestModifier) -> Self { with { $0.requestModifier = modifier } }
    /// `.requestModifier(AnyModifier(modify: modify))`.
    public func requestModifier(_ modify: @escaping @Sendable (URLRequest) -> URLRequest?) -> Self {
        with { $0.requestModifier = AnyModifier(modify: modify) }
    }
    /// `.redirectHandler(handler)`.
    public func redirectHandler(_ handler: any ImageDownloadRedirectHandler) -> Self { with { $0.redirectHandler = handler } }
    /// `.retryStrategy(strategy)`; `nil` removes it.
    public func retry(_ strategy: (any RetryStrategy)?) -> Self { with { $0.retryStrategy = strategy } }
    /// `.retryStrategy(DelayRetryStrategy(maxRetryCount: maxCount, retryInterval: interval))`.
    public func retry(maxCount: Int, interval: DelayRetryStrategy.Interval = .seconds(3)) -> Self {
        with { $0.retryStrategy = DelayRetryStrategy(maxRetryCount: maxCount, retryInterval: interval) }
    }
    /// `.alternativeSources(sources)`.
    public func alternativeSources(_ sources: [Source]?) -> Self { with { $0.alternativeSources = sources } }
    /// `.lowDataMode(source)`.
    public func lowDataModeSource(_ source: Source?) -> Self { with { $0.lowDataModeSource = source } }

    // MARK: Processing and decoding

    /// `.processor(processor)`, replacing the processor set so far.
    public func setProcessor(_ processor: any ImageProcessor) -> Self { with { $0.processor = processor } }
    /// `.processor` with `processors` chained in order; an empty list sets the default processor.
    public func setProcessors(_ processors: [any ImageProcessor]) -> Self {
        with { options in
            guard let first = processors.first else {
                options.processor = DefaultImageProcessor.default
                return
            }
            options.processor = processors.dropFirst().reduce(first) { $0 |> $1 }
        }
    }
    /// Chains `processor` after the one set so far (or sets it, over the default processor).
    public func appendProcessor(_ processor: any ImageProcessor) -> Self {
        with { options in
            options.processor = options.processor.identifier.isEmpty ? processor : options.processor |> processor
        }
    }
    /// Appends a ``RoundCornerImageProcessor``.
    public func roundCorner(
        radius: Radius, targetSize: CGSize? = nil, roundingCorners corners: RectCorner = .all,
        backgroundColor: KFCrossPlatformColor? = nil
    ) -> Self {
        appendProcessor(RoundCornerImageProcessor(
            radius: radius, targetSize: targetSize, roundingCorners: corners, backgroundColor: backgroundColor))
    }
    /// Appends a ``BlurImageProcessor``.
    public func blur(radius: CGFloat) -> Self { appendProcessor(BlurImageProcessor(blurRadius: radius)) }
    /// Appends an ``OverlayImageProcessor``.
    public func overlay(color: KFCrossPlatformColor, fraction: CGFloat = 0.5) -> Self {
        appendProcessor(OverlayImageProcessor(overlay: color, fraction: fraction))
    }
    /// Appends a ``TintImageProcessor``.
    public func tint(color: KFCrossPlatformColor) -> Self { appendProcessor(TintImageProcessor(tint: color)) }
    /// Appends a ``BlackWhiteProcessor``.
    public func blackWhite() -> Self { appendProcessor(BlackWhiteProcessor()) }
    /// Appends a ``CroppingImageProcessor``.
    public func cropping(size: CGSize, anchor: CGPoint = CGPoint(x: 0.5, y: 0.5)) -> Self {
        appendProcessor(CroppingImageProcessor(size: size, anchor: anchor))
    }
    /// Appends a ``DownsamplingImageProcessor``.
    public func downsampling(size: CGSize) -> Self { appendProcessor(DownsamplingImageProcessor(size: size)) }
    /// Appends a ``ResizingImageProcessor``.
    public func resizing(referenceSize: CGSize, mode: ContentMode = .none) -> Self {
        appendProcessor(ResizingImageProcessor(referenceSize: referenceSize, mode: mode))
    }
    /// Appends a ``BorderImageProcessor``.
    public func border(_ border: Border) -> Self { appendProcessor(BorderImageProcessor(border: border)) }
    /// Appends a ``ColorControlsProcessor``.
    public func colorControls(brightness: CGFloat, contrast: CGFloat, saturation: CGFloat, inputEV: CGFloat) -> Self {
        appendProcessor(ColorControlsProcessor(brightness: brightness, contrast: contrast, saturation: saturation, inputEV: inputEV))
    }
    /// `.imageModifier(modifier)`.
    public func imageModifier(_ modifier: (any ImageModifier)?) -> Self { with { $0.imageModifier = modifier } }
    /// `.imageModifier` with a modifier that lets `block` change the image in place; when `block`
    /// throws, the image is used as it was.
    public func imageModifier(_ block: @escaping @Sendable (inout KFCrossPlatformImage) throws -> Void) -> Self {
        imageModifier(AnyImageModifier { image in
            var image = image
            try block(&image)
            return image
        })
    }
    /// `.scaleFactor(factor)`.
    public func scaleFactor(_ factor: CGFloat) -> Self { with { $0.scaleFactor = factor.isFinite && factor > 0 ? factor : 1 } }
    /// `.onlyLoadFirstFrame` when `enabled`.
    public func onlyLoadFirstFrame(_ enabled: Bool = true) -> Self { with { $0.onlyLoadFirstFrame = enabled } }
    /// `.preloadAllAnimationData` when `enabled`.
    public func preloadAllAnimationData(_ enabled: Bool = true) -> Self { with { $0.preloadAllAnimationData = enabled } }
    /// `.backgroundDecode` when `enabled`.
    public func backgroundDecode(_ enabled: Bool = true) -> Self { with { $0.backgroundDecode = enabled } }
    /// `.decodingLimits(limits)`.
    public func decodingLimits(_ limits: ImageDecodingLimits) -> Self { with { $0.decodingLimits = limits } }
    /// `.processingQueue(queue)`.
    public func processingQueue(_ queue: CallbackQueue?) -> Self { with { $0.processingQueue = queue } }
    /// `.callbackQueue(queue)`: used by direct manager calls; image targets always call back on the main actor.
    public func callbackQueue(_ queue: CallbackQueue) -> Self { with { $0.callbackQueue = queue } }
}
