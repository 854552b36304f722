import Foundation
import KingfisherSynchronization

/// Called when a retrieval's ``DownloadTask`` changes: with the task of the download it starts,
/// or `nil` when it moves on without one (a cache hit, a data provider).
public typealias DownloadTaskUpdatedBlock = @Sendable (_ newTask: DownloadTask?) -> Void

/// Retrieves images through the cache ladder: memory, disk, a cached original processed again,
/// then the network or a data provider, processing and caching what it fetched.
///
/// Use ``shared`` or an instance with its own downloader and cache. Every call merges
/// ``defaultOptions`` before its own options (the call's items win), and calls its completion
/// handler exactly once, whatever races with cancellation. Handlers run on the options'
/// `callbackQueue`, by default `.untouch` (the thread that finished the work): on Linux the main
/// queue runs only in programs that service it (an async `main`, `dispatchMain()` or a RunLoop),
/// and a command-line tool or server that does not would wait forever for a `.mainAsync` callback.
/// Choose `.mainAsync` or `.mainCurrentOrAsync` only in a program that services the main queue.
/// The async forms ignore `callbackQueue` and resume the caller directly.
///
/// Concurrent calls for the same key and processor share one download (through the
/// downloader), one disk read and one processing run; cancelling one caller never stops work
/// another caller still waits for, and the work stops when its last caller cancels (a disk read
/// already queued finishes, unseen). Shared work decodes and processes with the options of the
/// caller that started it. A disk entry that cannot be read is a miss, so fetching repairs it.
/// `onlyFromCache` wins over `forceRefresh`: together they fail without any fetch.
public final class KingfisherManager: Sendable {
    /// The manager of the process, on ``ImageDownloader/default`` and ``ImageCache/default``.
    public static let shared = KingfisherManager(downloader: .default, cache: .default)

    private struct Settings {
        var downloader: ImageDownloader
        var cache: ImageCache
        var defaultOptions: KingfisherOptionsInfo = []
    }
    private let settings: Mutex<Settings>

    /// Disk reads in flight, by cache, key and decoding options.
    let diskReads = SharedWork<DiskReadOutcome>()
    /// Images being made from a cached original, by caches, key and processor.
    let originals = SharedWork<KFCrossPlatformImage?>()
    /// Provider fetches (with their processing) in flight, by cache, key and processor.
    let provided = SharedWork<FetchedImage>()

    /// The downloader used when the options name none.
    public var downloader: ImageDownloader {
        get { settings.withLock { $0.downloader } }
        set { settings.withLock { $0.downloader = newValue } }
    }

    /// The cache used when the options name no `targetCache`.
    public var cache: ImageCache {
        get { settings.withLock { $0.cache } }
        set { settings.withLock { $0.cache = newValue } }
    }

    /// Options applied to every call, before the call's own (so the call's items win).
    public var defaultOptions: KingfisherOptionsInfo {
        get { settings.withLock { $0.defaultOptions } }
        set { settings.withLock { $0.defaultOptions = newValue } }
    }

    /// A manager that downloads with `downloader` and caches in `cache`.
    ///
    /// The manager does not own them: shut a downloader you made down yourself when done.
    public init(downloader: ImageDownloader, cache: ImageCache) {
        settings = Mutex(Settings(downloader: downloader, cache: cache))
    }

    /// The call's options parsed after the manager's defaults.
    func parsedOptions(_ options: KingfisherOptionsInfo?) -> KingfisherParsedOptionsInfo {
        KingfisherParsedOptionsInfo(defaultOptions + (options ?? []))
    }

    /// Retrieves the image of `source` through the cache ladder.
    ///
    /// - Parameters:
    ///   - source: Where the image comes from; a network source with a file URL is read from
    ///     disk by a ``LocalFileImageDataProvider``.
    ///   - options: This call's options, applied after ``defaultOptions``.
    ///   - progressBlock: Download progress, on the callback queue; not called for cache hits
    ///     or providers.
    ///   - downloadTaskUpdated: Called with the same returned task when the retrieval moves on
    ///     to one of the `alternativeSources`.
    ///   - completionHandler: Runs exactly once, on the options' `callbackQueue`. Cancelling
    ///     the returned task delivers `.requestError(.taskCancelled)`.
    /// - Returns: A task to cancel the work in flight (cache read, download, provider or
    ///   processing); `nil` when the completion handler already ran or is queued, as for a
    ///   memory hit.
    @discardableResult
    public func retrieveImage(
        with source: Source,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        retrieveImage(
            with: source, parsedOptions: parsedOptions(options), progressBlock: progressBlock,
            downloadTaskUpdated: downloadTaskUpdated, completionHandler: completionHandler)
    }

    /// Retrieves the image of `resource`; a file URL is read from disk, not downloaded.
    ///
    /// The same as the `Source` form with `resource.convertToSource()`.
    @discardableResult
    public func retrieveImage(
        with resource: any Resource,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        downloadTaskUpdated: DownloadTaskUpdatedBlock? = nil,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        retrieveImage(
            with: resource.convertToSource(), options: options, progressBlock: progressBlock,
            downloadTaskUpdated: downloadTaskUpdated, completionHandler: completionHandler)
    }

    /// The callback form with options already parsed (defaults included).
    func retrieveImage(
        with source: Source,
        parsedOptions options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock?,
        downloadTaskUpdated: DownloadTaskUpdatedBlock?,
        completionHandler: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) -> DownloadTask? {
        if !options.forceRefresh,
           let image = targetCache(for: options).retrieveImageInMemoryCache(forKey: source.cacheKey, options: options) {
            let result = RetrieveImageResult(
                image: modified(image, options: options), cacheType: .memory, source: source, originalSource: source,
                data: Self.serializedData(of: image, options: options))
            if let completionHandler {
                options.callbackQueue.execute { completionHandler(.success(result)) }
            }
            return nil
        }
        let retrieval = ManagedRetrieval(
            source: source, options: options, progressBlock: progressBlock,
            downloadTaskUpdated: downloadTaskUpdated, completion: completionHandler)
        let task = DownloadTask(
            managing: source.url ?? Self.placeholderURL, options: options,
            downloader: downloader(for: options), source: source,
            onCancel: { [retrieval] in retrieval.cancel() })
        retrieval.attach(task)
        attempt(source, retrieval, checkMemory: false)
        return retrieval.isActive ? task : nil
    }

    /// The URL recorded in a task whose source has none; never requested.
    static let placeholderURL = URL(fileURLWithPath: "/")

    /// The cache that answers for and receives processed images.
    func targetCache(for options: KingfisherParsedOptionsInfo) -> ImageCache {
        options.targetCache ?? cache
    }

    /// The cache searched for, and receiving, originals.
    func originalCache(for options: KingfisherParsedOptionsInfo) -> ImageCache {
        options.originalCache ?? targetCache(for: options)
    }

    /// The downloader the options name, else the manager's.
    func downloader(for options: KingfisherParsedOptionsInfo) -> ImageDownloader {
        options.downloader ?? downloader
    }

    /// The bytes the options' cache serializer makes of `image`, made only when asked for: what a
    /// cache hit gives as ``RetrieveImageResult/data``.
    static func serializedData(of image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo) -> @Sendable () -> Data? {
        let serializer = options.cacheSerializer
        return { serializer.data(with: image, original: nil) }
    }

    /// `image` after the options' image modifier, if any.
    func modified(_ image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage {
        options.imageModifier?.modify(image) ?? image
    }
}
