import Foundation

/// Options for one request, as a list; when an item appears twice, the last one wins.
public typealias KingfisherOptionsInfo = [KingfisherOptionsInfoItem]

/// One option of a request.
///
/// Every item that means something without a user interface is honoured by ``KingfisherManager``.
/// The items about showing an image (`transition`, `forceTransition`, `keepCurrentImageWhileLoading`,
/// `onFailureImage`, `asyncCacheTypeCheck`) act through `kf.setImage` on an image target
/// (``KingfisherImageSettable``); a direct manager call parses them and ignores them.
public enum KingfisherOptionsInfoItem: Sendable {
    /// Decode and process at this scale (pixels per point). Default 1.
    case scaleFactor(CGFloat)
    /// Decode only the first frame of an animation.
    case onlyLoadFirstFrame
    /// The processor applied to downloaded or provided data. Default ``DefaultImageProcessor``.
    case processor(any ImageProcessor)
    /// How images become bytes for the disk cache. Default ``DefaultCacheSerializer``.
    case cacheSerializer(any CacheSerializer)
    /// Applied to the image after it leaves the cache, every time; never cached.
    case imageModifier(any ImageModifier)
    /// The decoding limits (not in Kingfisher): pixels per frame, frames, pixels per animation.
    case decodingLimits(ImageDecodingLimits)
    /// Where completion handlers run. Default `.untouch` (see ``CallbackQueue``).
    case callbackQueue(CallbackQueue)
    /// Expiration of images stored in memory; default the memory storage's own.
    case memoryCacheExpiration(StorageExpiration)
    /// What a memory hit does to the expiry. Default `.cacheTime`.
    case memoryCacheAccessExtendingExpiration(ExpirationExtending)
    /// Expiration of images stored on disk; default the disk storage's own.
    case diskCacheExpiration(StorageExpiration)
    /// What a disk hit does to the expiry. Default `.cacheTime`.
    case diskCacheAccessExtendingExpiration(ExpirationExtending)
    /// Store in memory only, never on disk.
    case cacheMemoryOnly
    /// Read the disk cache on the calling thread instead of the cache's I/O queue.
    case loadDiskFileSynchronously
    /// Consult only the memory cache; on a miss, skip the disk and go to the network.
    case fromMemoryCacheOrRefresh
    /// The file extension of disk cache files, replacing the storage's `pathExtension`.
    case forcedCacheFileExtension(String?)
    /// Options passed to `Data.write(to:options:)` for disk cache files.
    case diskStoreWriteOptions(Data.WritingOptions)
    /// The downloader that fetches the image. Default ``ImageDownloader/default``.
    case downloader(ImageDownloader)
    /// Changes the request before it is sent (headers, URL); sync or async. Default none.
    case requestModifier(any AsyncImageDownloadRequestModifier)
    /// Decides on each redirect: follow it as is, change the new request, or stop (`nil`).
    case redirectHandler(any ImageDownloadRedirectHandler)
    /// Orders requests waiting for a connection to their host; higher first. Default 0.5.
    case downloadPriority(Float)
    /// Retries failed downloads; user cancellation is never retried. Default none.
    case retryStrategy(any RetryStrategy)
    /// The cache that receives and answers for processed images. Default the manager's cache.
    case targetCache(ImageCache)
    /// The cache for original (unprocessed) images when `cacheOriginalImage` is set; also
    /// searched for an original to process without network. Default the target cache.
    case originalCache(ImageCache)
    /// Skip the cache lookup and fetch again (the result is still stored).
    case forceRefresh
    /// Answer only from the cache; a miss fails with `.cacheError(.imageNotExisting)` and no
    /// network or provider is used.
    case onlyFromCache
    /// Call back only after the image has been written to the disk cache.
    case waitForCache
    /// Accepted for compatibility: images are always decoded fully off the calling thread here.
    case backgroundDecode
    /// Decode every frame of an animation at once, also for a target that plays animations lazily
    /// (whose `shouldPreloadAllAnimation()` is false). Other requests always decode every frame.
    case preloadAllAnimationData
    /// Also store the unprocessed image (in `originalCache`) when a processor is used, so other
    /// processors can later start from it without network.
    case cacheOriginalImage
    /// Where processing runs. Default `.untouch`: on the thread that received the data.
    case processingQueue(CallbackQueue)
    /// Sources tried in order when the main source fails (not when the caller cancels).
    case alternativeSources([Source])
    /// Used instead of the source when the caller marks a low-data situation; accepted for
    /// compatibility, there is no system low-data signal on Linux.
    case lowDataMode(Source?)
    /// Image targets: keep the image the target shows while loading instead of showing the
    /// placeholder (a target with no image still gets the placeholder).
    case keepCurrentImageWhileLoading
    /// Image targets: the image shown when the retrieval fails; `nil` clears the target.
    case onFailureImage(KFCrossPlatformImage?)
    /// Image targets: how a loaded image replaces the old one. Runs only for images that were
    /// downloaded or provided (`cacheType == .none`) unless `forceTransition` is set. Default `.none`.
    case transition(ImageTransition)
    /// Image targets: run the `transition` for cache hits too.
    case forceTransition
    /// ``ImagePrefetcher``: load images that are only on disk into memory as well.
    case alsoPrefetchToMemory
    /// Image targets: never finish `setImage` before it returns, even for a memory hit; the
    /// completion always runs in a later turn of the main actor.
    case asyncCacheTypeCheck
    /// Show a progressive JPEG as its scans arrive, as ``ImageProgressive`` describes.
    case progressiveJPEG(ImageProgressive)
    /// HTTP caching for downloads: keep each response's `ETag`, `Last-Modified` and
    /// `Cache-Control` next to its disk entry (`max-age` becomes the disk expiration, `no-store`
    /// keeps the image off the disk), and revalidate an expired entry with a conditional request:
    /// a `304` refreshes its expiry and the cached image is used, without a body. Disk reads then
    /// do not extend the expiry unless `diskCacheAccessExtendingExpiration` says so. Off by default.
    case revalidateExpiredCache
}

/// The parsed form of ``KingfisherOptionsInfo`` that processors, serializers and modifiers read.
public struct KingfisherParsedOptionsInfo: Sendable {
    /// Pixels per point of decoded and processed images.
    public var scaleFactor: CGFloat = 1
    /// Decode only the first frame of animations.
    public var onlyLoadFirstFrame = false
    /// The processor of the request.
    public var processor: any ImageProcessor = DefaultImageProcessor.default
    /// The serializer for the disk cache.
    public var cacheSerializer: any CacheSerializer = DefaultCacheSerializer.default
    /// The modifier applied after the cache.
    public var imageModifier: (any ImageModifier)?
    /// Decoding limits.
    public var decodingLimits: ImageDecodingLimits = .default
    /// Where completion handlers run.
    public var callbackQueue: CallbackQueue = .untouch
    /// Expiration for memory stores; `nil` uses the storage's.
    public var memoryCacheExpiration: StorageExpiration?
    /// What a memory hit does to the expiry.
    public var memoryCacheAccessExtendingExpiration: ExpirationExtending = .cacheTime
    /// Expiration for disk stores; `nil` uses the storage's.
    public var diskCacheExpiration: StorageExpiration?
    /// What a disk hit does to the expiry.
    public var diskCacheAccessExtendingExpiration: ExpirationExtending = .cacheTime
    /// Store in memory only.
    public var cacheMemoryOnly = false
    /// Read the disk on the calling thread.
    public var loadDiskFileSynchronously = false
    /// Skip the disk cache on a memory miss.
    public var fromMemoryCacheOrRefresh = false
    /// The extension of disk cache files, when forced.
    public var forcedExtension: String?
    /// Write options for disk cache files.
    public var diskStoreWriteOptions: Data.WritingOptions = []
    /// The downloader; `nil` means ``ImageDownloader/default``.
    public var downloader: ImageDownloader?
    /// The request modifier, if any.
    public var requestModifier: (any AsyncImageDownloadRequestModifier)?
    /// The redirect handler, if any.
    public var redirectHandler: (any ImageDownloadRedirectHandler)?
    /// The priority among requests queued for the same host (0...1 by convention).
    public var downloadPriority: Float = ImageDownloader.defaultDownloadPriority
    /// The retry strategy, if any.
    public var retryStrategy: (any RetryStrategy)?
    /// The cache for processed images; `nil` means the manager's.
    public var targetCache: ImageCache?
    /// The cache for originals; `nil` means the target cache.
    public var originalCache: ImageCache?
    /// Skip the cache lookup.
    public var forceRefresh = false
    /// Never fetch; a cache miss is an error.
    public var onlyFromCache = false
    /// Call back after the disk write.
    public var waitForCache = false
    /// Parsed for compatibility; decoding always happens off the caller.
    public var backgroundDecode = false
    /// Decode every frame at once even for a target that plays animations lazily.
    public var preloadAllAnimationData = false
    /// Also cache the unprocessed image.
    public var cacheOriginalImage = false
    /// Where processing runs.
    public var processingQueue: CallbackQueue?
    /// Sources to try in order after the main one fails.
    public var alternativeSources: [Source]?
    /// The low-data source, if given.
    public var lowDataModeSource: Source?
    /// Image targets: keep the current image while loading.
    public var keepCurrentImageWhileLoading = false
    /// Image targets: the image for a failure (`.some(nil)` clears); `nil` leaves the target as it is.
    public var onFailureImage: KFCrossPlatformImage??
    /// Image targets: the transition for loaded images.
    public var transition: ImageTransition = .none
    /// Image targets: run the transition for cache hits too.
    public var forceTransition = false
    /// Prefetching also loads disk-only images into memory.
    public var alsoPrefetchToMemory = false
    /// Image targets: never complete synchronously.
    public var asyncCacheTypeCheck = false
    /// Progressive JPEG display, when set.
    public var progressiveJPEG: ImageProgressive?
    /// Keep response validators and revalidate expired disk entries.
    public var revalidateExpiredCache = false
    /// Whether the request that carries these options is still the one its image target waits
    /// for; `nil` for requests that are not made for a target. Set by `kf.setImage`, read from any
    /// thread by the manager and the cache to stop superseded work early.
    var sourceTaskIdentifierChecker: (@Sendable () -> Bool)?
    /// Set by `setImage` on a target whose `shouldPreloadAllAnimation()` is false (an animated image
    /// view): animations decode lazily unless `preloadAllAnimationData` is given.
    var lazyAnimationFrames = false
    /// Set by an image target's `setImage` with `.progressiveJPEG`: shows a partial image (from
    /// any thread; the target hops to the main actor and checks the request is still current).
    var progressiveImageSetter: (@Sendable (KFCrossPlatformImage) -> Void)?

    /// Parses `info`; `nil` gives the defaults.
    public init(_ info: KingfisherOptionsInfo?) {
        for item in info ?? [] {
            switch item {
            case .scaleFactor(let value): scaleFactor = value.isFinite && value > 0 ? value : 1
            case .onlyLoadFirstFrame: onlyLoadFirstFrame = true
            case .processor(let value): processor = value
            case .cacheSerializer(let value): cacheSerializer = value
            case .imageModifier(let value): imageModifier = value
            case .decodingLimits(let value): decodingLimits = value
            case .callbackQueue(let value): callbackQueue = value
            case .memoryCacheExpiration(let value): memoryCacheExpiration = value
            case .memoryCacheAccessExtendingExpiration(let value): memoryCacheAccessExtendingExpiration = value
            case .diskCacheExpiration(let value): diskCacheExpiration = value
            case .diskCacheAccessExtendingExpiration(let value): diskCacheAccessExtendingExpiration = value
            case .cacheMemoryOnly: cacheMemoryOnly = true
            case .loadDiskFileSynchronously: loadDiskFileSynchronously = true
            case .fromMemoryCacheOrRefresh: fromMemoryCacheOrRefresh = true
            case .forcedCacheFileExtension(let value): forcedExtension = value
            case .diskStoreWriteOptions(let value): diskStoreWriteOptions = value
            case .downloader(let value): downloader = value
            case .requestModifier(let value): requestModifier = value
            case .redirectHandler(let value): redirectHandler = value
            case .downloadPriority(let value): downloadPriority = value.isFinite ? value : ImageDownloader.defaultDownloadPriority
            case .retryStrategy(let value): retryStrategy = value
            case .targetCache(let value): targetCache = value
            case .originalCache(let value): originalCache = value
            case .forceRefresh: forceRefresh = true
            case .onlyFromCache: onlyFromCache = true
            case .waitForCache: waitForCache = true
            case .backgroundDecode: backgroundDecode = true
            case .preloadAllAnimationData: preloadAllAnimationData = true
            case .cacheOriginalImage: cacheOriginalImage = true
            case .processingQueue(let value): processingQueue = value
            case .alternativeSources(let value): alternativeSources = value
            case .lowDataMode(let value): lowDataModeSource = value
            case .keepCurrentImageWhileLoading: keepCurrentImageWhileLoading = true
            case .onFailureImage(let value): onFailureImage = .some(value)
            case .transition(let value): transition = value
            case .forceTransition: forceTransition = true
            case .alsoPrefetchToMemory: alsoPrefetchToMemory = true
            case .asyncCacheTypeCheck: asyncCacheTypeCheck = true
            case .progressiveJPEG(let value): progressiveJPEG = value
            case .revalidateExpiredCache: revalidateExpiredCache = true
            }
        }
        // HTTP freshness runs from the response, not from the last read: unless the caller chose
        // otherwise, reading a revalidated entry does not extend its disk expiry.
        let extendingGiven = (info ?? []).contains {
            if case .diskCacheAccessExtendingExpiration = $0 { return true }
            return false
        }
        if revalidateExpiredCache && !extendingGiven {
            diskCacheAccessExtendingExpiration = .none
        }
    }

    /// `false` when these options belong to an image-target request that a newer request on the
    /// same target has superseded.
    var isCurrentSourceTask: Bool {
        sourceTaskIdentifierChecker?() ?? true
    }

    /// The decoding options these options imply.
    public var imageCreatingOptions: ImageCreatingOptions {
        ImageCreatingOptions(scale: scaleFactor, onlyFirstFrame: onlyLoadFirstFrame, limits: decodingLimits,
                             preloadAllFrames: preloadAllAnimationData || !lazyAnimationFrames)
    }
}
