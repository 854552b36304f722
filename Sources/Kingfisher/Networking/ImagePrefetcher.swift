import Foundation
import KingfisherSynchronization

/// Reports a prefetcher's resources so far: skipped (already cached), failed and completed.
///
/// Each call carries the whole lists up to that moment, not just the latest item.
public typealias PrefetcherProgressBlock = @Sendable (
    _ skippedResources: [any Resource], _ failedResources: [any Resource], _ completedResources: [any Resource]
) -> Void

/// Reports a prefetcher's sources so far: skipped (already cached), failed and completed.
public typealias PrefetcherSourceProgressBlock = @Sendable (
    _ skippedSources: [Source], _ failedSources: [Source], _ completedSources: [Source]
) -> Void

/// Called once when a prefetcher has finished or was stopped, with its final resource lists.
public typealias PrefetcherCompletionHandler = @Sendable (
    _ skippedResources: [any Resource], _ failedResources: [any Resource], _ completedResources: [any Resource]
) -> Void

/// Called once when a prefetcher has finished or was stopped, with its final source lists.
public typealias PrefetcherSourceCompletionHandler = @Sendable (
    _ skippedSources: [Source], _ failedSources: [Source], _ completedSources: [Source]
) -> Void

/// How one source of a prefetch ended, as ``ImagePrefetcher/sourceFinishedBlock`` reports it.
///
/// Not in Kingfisher, whose prefetcher lists the failed sources but not why they failed.
public enum PrefetchOutcome: Sendable {
    /// The target cache already held it (`.memory` or `.disk`); nothing was loaded.
    case skipped(CacheType)
    /// Retrieved now and stored.
    case completed
    /// The retrieval failed with this error.
    case failed(KingfisherError)
}

/// Called once for each source as it ends: the source, how it ended, and the time from when the
/// prefetcher took it up to its end.
public typealias PrefetcherSourceFinishedBlock = @Sendable (
    _ source: Source, _ outcome: PrefetchOutcome, _ duration: Duration
) -> Void

/// Fills the cache ahead of time with images that will be needed soon.
///
/// Each source is looked up in the target cache (the `.targetCache` option, else the manager's
/// cache) under its key and the options' processor. One already cached is *skipped*; with
/// ``alsoPrefetchToMemory`` a disk-only hit is first loaded into memory (and still counts as
/// skipped). Every other source is retrieved through the ``KingfisherManager``, at most
/// ``maxConcurrentDownloads`` at a time, and counts as *completed* once its image is stored: the
/// prefetcher adds `.waitForCache`, so a completed image is already on disk (unless the options
/// say `.cacheMemoryOnly`). Downloaded images are stored like any retrieval, in memory as well as
/// on disk; the memory storage's LRU limit keeps a long prefetch from growing memory without end.
/// With `.forceRefresh` nothing is skipped. A source that fails counts as *failed*.
///
/// Progress and completion run one at a time, in order, on the options' `callbackQueue` (default
/// `.untouch`: on the thread that finished a source, or that called ``start()`` or ``stop()``,
/// never two at once); the completion handler runs exactly once, after the last progress report. The prefetcher keeps itself alive until it finishes.
/// Every member is safe to call from any thread.
public final class ImagePrefetcher: Sendable {
    /// One source to prefetch, and the resource it was made from, if any.
    struct Item: Sendable {
        let source: Source
        let resource: (any Resource)?
    }

    /// Where the prefetcher is in its life.
    enum Phase { case idle, running, finished }

    struct State {
        var phase = Phase.idle
        var maxConcurrentDownloads = 5
        var alsoPrefetchToMemory = false
        var nextIndex = 0
        var launching = false
        var active: Set<Int> = []
        var tasks: [Int: DownloadTask] = [:]
        var startTimes: [Int: ContinuousClock.Instant] = [:]
        var sourceFinished: PrefetcherSourceFinishedBlock?
    }

    /// How many sources are retrieved at once; at least 1. Default 5.
    ///
    /// Raising it while running starts more retrievals at once; lowering it lets the running ones
    /// finish.
    public var maxConcurrentDownloads: Int {
        get { state.withLock { $0.maxConcurrentDownloads } }
        set {
            state.withLock { $0.maxConcurrentDownloads = max(1, newValue) }
            launchMore()
        }
    }

    /// Whether a source cached only on disk is loaded into memory too. Default `false`, or `true`
    /// when the options hold `.alsoPrefetchToMemory`.
    ///
    /// Set it before ``start()``. Such a source still counts as skipped.
    public var alsoPrefetchToMemory: Bool {
        get { state.withLock { $0.alsoPrefetchToMemory } }
        set { state.withLock { $0.alsoPrefetchToMemory = newValue } }
    }

    /// Called once for each source that is skipped, completed or fails, before the progress
    /// report that counts it, on the same queue. Set it before ``start()``.
    ///
    /// Sources that ``stop()`` counts as failed are not reported here. Not in Kingfisher: it gives
    /// each failure its error, for callers that must say why a prefetch failed.
    public var sourceFinishedBlock: PrefetcherSourceFinishedBlock? {
        get { state.withLock { $0.sourceFinished } }
        set { state.withLock { $0.sourceFinished = newValue } }
    }

    let items: [Item]
    let manager: KingfisherManager
    /// The caller's options, given to the manager for each retrieval.
    let retrievalOptions: KingfisherOptionsInfo
    /// The caller's options merged over the manager's defaults, for the cache lookups.
    let parsedOptions: KingfisherParsedOptionsInfo
    let state = Mutex(State())
    /// Reports waiting to be delivered, in order, and the lists they hand out.
    let reports = Mutex(ReportState())
    let sourceProgress: PrefetcherSourceProgressBlock?
    let sourceCompletion: PrefetcherSourceCompletionHandler?
    let resourceProgress: PrefetcherProgressBlock?
    let resourceCompletion: PrefetcherCompletionHandler?

    init(
        items: [Item], options: KingfisherOptionsInfo?, manager: KingfisherManager?,
        sourceProgress: PrefetcherSourceProgressBlock?, sourceCompletion: PrefetcherSourceCompletionHandler?,
        resourceProgress: PrefetcherProgressBlock?, resourceCompletion: PrefetcherCompletionHandler?
    ) {
        let manager = manager ?? KingfisherManager.shared
        self.items = items
        self.manager = manager
        self.retrievalOptions = (options ?? []) + [.callbackQueue(.untouch), .waitForCache]
        self.parsedOptions = KingfisherParsedOptionsInfo(manager.defaultOptions + (options ?? []))
        if parsedOptions.alsoPrefetchToMemory {
            state.withLock { $0.alsoPrefetchToMemory = true }
        }
        self.sourceProgress = sourceProgress
        self.sourceCompletion = sourceCompletion
        self.resourceProgress = resourceProgress
        self.resourceCompletion = resourceCompletion
    }

    /// A prefetcher for images at `urls`, cached under their absolute strings.
    ///
    /// - Parameters:
    ///   - urls: The images; file URLs are read from disk instead of downloaded.
    ///   - options: Options for every retrieval, such as `.processor` or `.targetCache`.
    ///   - manager: The manager that retrieves; ``KingfisherManager/shared`` when `nil`.
    ///   - progressBlock: Called after each URL is skipped, failed or completed.
    ///   - completionHandler: Called once at the end, or when ``stop()`` is called.
    public convenience init(
        urls: [URL], options: KingfisherOptionsInfo? = nil, manager: KingfisherManager? = nil,
        progressBlock: PrefetcherProgressBlock? = nil, completionHandler: PrefetcherCompletionHandler? = nil
    ) {
        self.init(resources: urls, options: options, manager: manager,
                  progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// A prefetcher for `resources`; see ``init(urls:options:manager:progressBlock:completionHandler:)``.
    public convenience init(
        resources: [any Resource], options: KingfisherOptionsInfo? = nil, manager: KingfisherManager? = nil,
        progressBlock: PrefetcherProgressBlock? = nil, completionHandler: PrefetcherCompletionHandler? = nil
    ) {
        self.init(
            items: resources.map { Item(source: $0.convertToSource(), resource: $0) },
            options: options, manager: manager, sourceProgress: nil, sourceCompletion: nil,
            resourceProgress: progressBlock, resourceCompletion: completionHandler)
    }

    /// A prefetcher for `sources`, network resources or data providers.
    ///
    /// - Parameters:
    ///   - sources: The images.
    ///   - options: Options for every retrieval, such as `.processor` or `.targetCache`.
    ///   - manager: The manager that retrieves; ``KingfisherManager/shared`` when `nil`.
    ///   - progressBlock: Called after each source is skipped, failed or completed.
    ///   - completionHandler: Called once at the end, or when ``stop()`` is called.
    public convenience init(
        sources: [Source], options: KingfisherOptionsInfo? = nil, manager: KingfisherManager? = nil,
        progressBlock: PrefetcherSourceProgressBlock? = nil, completionHandler: PrefetcherSourceCompletionHandler? = nil
    ) {
        self.init(
            items: sources.map { Item(source: $0, resource: $0.asResource) },
            options: options, manager: manager, sourceProgress: progressBlock, sourceCompletion: completionHandler,
            resourceProgress: nil, resourceCompletion: nil)
    }

    /// Starts prefetching; calling it again, or after ``stop()``, does nothing.
    ///
    /// With no sources the completion handler is called at once (on the callback queue).
    public func start() {
        let empty = state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            guard items.isEmpty else { return false }
            state.phase = .finished
            return true
        }
        if empty {
            report([], isFinal: true, finished: nil)
        } else {
            launchMore()
        }
    }

    /// Stops prefetching: running retrievals are cancelled and every source not yet skipped or
    /// completed counts as failed.
    ///
    /// The completion handler is called once with the final lists (unless it already was).
    /// Stopping before ``start()`` fails every source.
    public func stop() {
        let outcome = state.withLock { state -> (tasks: [DownloadTask], failed: [Int])? in
            guard state.phase != .finished else { return nil }
            state.phase = .finished
            let failed = state.active.sorted() + Array(state.nextIndex..<items.count)
            state.nextIndex = items.count
            state.active = []
            let tasks = Array(state.tasks.values)
            state.tasks = [:]
            state.startTimes = [:]
            return (tasks, failed)
        }
        guard let outcome else { return }
        outcome.tasks.forEach { $0.cancel() }
        report(outcome.failed.map { ($0, .failed) }, isFinal: true, finished: nil)
    }
}

extension ImagePrefetcher: CustomStringConvertible {
    /// The prefetcher's address, as Kingfisher prints it: tells two prefetchers apart in logs.
    public var description: String {
        "\(Unmanaged.passUnretained(self).toOpaque())"
    }
}
