import Foundation
import Synchronization

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

    /// Makes a result.
    public init(image: KFCrossPlatformImage, url: URL? = nil, originalData: Data) {
        self.image = image
        self.url = url
        self.originalData = originalData
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
        var cancelled = false
        var finished = false
    }

    let url: URL
    let options: KingfisherParsedOptionsInfo
    let downloader: ImageDownloader
    private let progressBlock: DownloadProgressBlock?
    private let completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    private let state = Mutex(State())
    let retryContext = Mutex<RetryContext?>(nil)

    init(
        url: URL,
        options: KingfisherParsedOptionsInfo,
        downloader: ImageDownloader,
        progressBlock: DownloadProgressBlock?,
        completion: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)?
    ) {
        self.url = url
        self.options = options
        self.downloader = downloader
        self.progressBlock = progressBlock
        self.completion = completion
    }

    /// The shared transfer this caller is attached to; `nil` before it starts or between retries.
    public var sessionTask: SessionDataTask? { state.withLock { $0.sessionTask } }

    /// This caller's token in ``sessionTask``.
    public var cancelToken: SessionDataTask.CancelToken? { state.withLock { $0.token } }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Cancels this caller only; its completion handler gets `.requestError(.taskCancelled)`.
    ///
    /// Does nothing when the download already finished.
    public func cancel() {
        let link = state.withLock { state -> (SessionDataTask, SessionDataTask.CancelToken)? in
            guard !state.finished, !state.cancelled else { return nil }
            state.cancelled = true
            guard let task = state.sessionTask, let token = state.token else { return nil }
            return (task, token)
        }
        if let (task, token) = link {
            task.cancel(token: token)
        } else {
            finish(.failure(.requestError(reason: .taskCancelled(task: nil, token: nil))))
        }
    }

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
