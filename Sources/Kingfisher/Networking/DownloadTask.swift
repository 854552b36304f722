import Foundation
import KingfisherSynchronization

/// Called as bytes arrive: bytes received so far, and the `Content-Length` (`-1` when unknown).
public typealias DownloadProgressBlock = @Sendable (_ receivedSize: Int64, _ totalSize: Int64) -> Void

/// A downloaded and processed image.
public struct ImageLoadingResult: Sendable {
    /// The image, after the caller's processor.
    public let image: KFCrossPlatformImage
    /// The URL requested (after the request modifier; before redirects).
    public let url: URL?
    /// The bytes received (after the delegate's data hook).
    public let originalData: Data
    /// What the response said about caching it; `nil` when not known.
    public let validators: ResponseValidators?
    /// How the download went on the network; `nil` when not measured.
    public let metrics: NetworkMetrics?

    /// Makes a result.
    public init(
        image: KFCrossPlatformImage, url: URL? = nil, originalData: Data, validators: ResponseValidators? = nil,
        metrics: NetworkMetrics? = nil
    ) {
        self.image = image
        self.url = url
        self.originalData = originalData
        self.validators = validators
        self.metrics = metrics
    }
}

/// One caller's download: cancel it without disturbing other callers of the same URL.
///
/// Several callers of one URL share one ``SessionDataTask`` (one network request); each holds its
/// own ``DownloadTask`` with its own ``cancelToken``. ``cancel()`` fails only this caller, with
/// `.requestError(.taskCancelled)`; the request stops when its last caller cancels. The completion
/// handler runs exactly once, and once ``cancel()`` returned no further progress callback is
/// delivered to this caller (one already running on another thread may still finish).
public final class DownloadTask: Sendable {
    private struct State {
        var sessionTask: SessionDataTask?
        var token: SessionDataTask.CancelToken?
        /// The transfer this caller left for a retry, and its token there: what a cancellation
        /// during the retry's delay names.
        var lastTransfer: (task: SessionDataTask, token: SessionDataTask.CancelToken)?
        var cancelled = false
        var finished = false
        /// For a manager-level task: the download it is waiting for now, if any.
        var linked: DownloadTask?
    }

    let url: URL
    let options: KingfisherParsedOptionsInfo
    let downloader: ImageDownloader
    /// The source the manager asked for, reported to the retry strategy; `nil` for direct downloads.
    let source: Source?
    /// Set on a manager-level task: what ``cancel()`` runs instead of cancelling a transfer.
    private let cancelHook: (@Sendable () -> Void)?
    private let progressBlock: DownloadProgressBlock?
    /// Given each piece of the body as it arrives (the progressive JPEG decoder); set before the
    /// task starts.
    let dataObserver: (@Sendable (Data) -> Void)?
    private let completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    private let state = Mutex(State())
    let retryContext = Mutex<RetryContext?>(nil)

    init(
        url: URL,
        options: KingfisherParsedOptionsInfo,
        downloader: ImageDownloader,
        source: Source? = nil,
        progressBlock: DownloadProgressBlock?,
        dataObserver: (@Sendable (Data) -> Void)? = nil,
        completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    ) {
        self.url = url
        self.options = options
        self.downloader = downloader
        self.source = source
        self.cancelHook = nil
        self.progressBlock = progressBlock
        self.dataObserver = dataObserver
        self.completion = completion
    }

    /// A manager-level task: it never transfers anything itself; ``cancel()`` runs `onCancel`
    /// once, which stops whatever work (disk read, provider, processing, download) is in flight.
    init(managing url: URL, options: KingfisherParsedOptionsInfo, downloader: ImageDownloader,
         source: Source, onCancel: @escaping @Sendable () -> Void) {
        self.url = url
        self.options = options
        self.downloader = downloader
        self.source = source
        self.cancelHook = onCancel
        self.progressBlock = nil
        self.dataObserver = nil
        self.completion = nil
    }

    /// The shared transfer this caller is attached to; `nil` before it starts or between retries.
    ///
    /// For a task returned by ``KingfisherManager``, the transfer of the download it waits for
    /// now; `nil` while it reads the cache, runs a provider or processes.
    public var sessionTask: SessionDataTask? {
        let (own, linked) = state.withLock { ($0.sessionTask, $0.linked) }
        return linked?.sessionTask ?? own
    }

    /// This caller's token in ``sessionTask``.
    public var cancelToken: SessionDataTask.CancelToken? {
        let (own, linked) = state.withLock { ($0.token, $0.linked) }
        return linked?.cancelToken ?? own
    }

    /// Records the download a manager-level task waits for now (`nil` when it waits for none).
    func link(_ task: DownloadTask?) {
        state.withLock { $0.linked = task }
    }

    /// Marks a manager-level task done, so a later ``cancel()`` does nothing.
    func markFinished() {
        state.withLock { $0.finished = true }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Whether the task is attached to a transfer: its own, or, for a task returned by
    /// ``KingfisherManager``, the download it waits for now. False before a download starts,
    /// between retries, and while the manager reads the cache, runs a data provider or processes.
    public var isInitialized: Bool {
        sessionTask != nil && cancelToken != nil
    }

    /// Cancels this caller only; its completion handler gets `.requestError(.taskCancelled)`.
    ///
    /// Does nothing when the download already finished.
    public func cancel() {
        if let cancelHook {
            let first = state.withLock { state -> Bool in
                guard !state.finished, !state.cancelled else { return false }
                state.cancelled = true
                return true
            }
            if first { cancelHook() }
            return
        }
        let link = state.withLock { state -> (SessionDataTask, SessionDataTask.CancelToken)? in
            guard !state.finished, !state.cancelled else { return nil }
            state.cancelled = true
            guard let task = state.sessionTask, let token = state.token else { return nil }
            return (task, token)
        }
        if let (task, token) = link {
            task.cancel(token: token)
        } else {
            finish(.failure(cancellationError(fallbackURL: url)))
        }
    }

    /// The `.requestError(.taskCancelled)` that names what a cancellation of this caller stops
    /// now: its transfer and token; for a manager-level task, those of the download it waits for;
    /// between attempts, the transfer it left; else a transfer of `fallbackURL` that never started.
    func cancellationError(fallbackURL: URL) -> KingfisherError {
        let (own, token, last, linked) = state.withLock { ($0.sessionTask, $0.token, $0.lastTransfer, $0.linked) }
        if let linked { return linked.cancellationError(fallbackURL: linked.url) }
        if let own, let token { return .requestError(reason: .taskCancelled(task: own, token: token)) }
        if let last { return .requestError(reason: .taskCancelled(task: last.task, token: last.token)) }
        return SessionDataTask.cancellationBeforeStart(url: fallbackURL, downloader: downloader)
    }

    /// This caller's own token in its transfer (never a linked download's).
    var attachedToken: SessionDataTask.CancelToken? { state.withLock { $0.token } }

    /// Attaches this caller to `task`; `false` when the caller was cancelled meanwhile.
    func attach(to task: SessionDataTask, token: SessionDataTask.CancelToken) -> Bool {
        state.withLock { state in
            state.sessionTask = task
            state.token = token
            return !state.cancelled && !state.finished
        }
    }

    /// Detaches from the finished transfer before a retry; `false` when the caller is done.
    func detachForRetry() -> Bool {
        state.withLock { state in
            if let task = state.sessionTask, let token = state.token { state.lastTransfer = (task, token) }
            state.sessionTask = nil
            state.token = nil
            return !state.cancelled && !state.finished
        }
    }

    /// Whether the caller still waits for its result.
    var isActive: Bool { state.withLock { !$0.cancelled && !$0.finished } }

    /// Reports progress on the callback queue, unless the caller cancelled or finished by then.
    func reportProgress(received: Int64, total: Int64) {
        guard let progressBlock else { return }
        options.callbackQueue.execute { [self] in
            // Checked where the block runs, so a cancel() that returned earlier is always seen.
            guard isActive else { return }
            progressBlock(received, total)
        }
    }

    /// Hands a piece of the body to the data observer, while the caller still waits.
    func reportData(_ piece: Data) {
        guard let dataObserver, isActive else { return }
        dataObserver(piece)
    }

    /// Delivers the result on the callback queue; only the first call has an effect.
    func finish(_ result: Result<ImageLoadingResult, KingfisherError>) {
        let first = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            return true
        }
        guard first, let completion else { return }
        options.callbackQueue.execute {
            completion(result)
        }
    }
}
