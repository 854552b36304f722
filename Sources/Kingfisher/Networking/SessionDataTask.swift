import Foundation
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One network transfer, shared by every caller that asked for the same request at the same time.
///
/// Kingfisher wraps a `URLSessionDataTask` here; on Linux the transfer runs on AsyncHTTPClient.
/// Each caller holds a ``CancelToken``; ``cancel(token:)`` fails that caller only, and the
/// transfer stops when no caller is left. Once the body has arrived the transfer accepts no new
/// callers: a later request for the same URL starts a new transfer.
public final class SessionDataTask: Sendable {
    /// Identifies one caller of the transfer.
    public typealias CancelToken = Int

    /// The URL of the request sent (after the request modifier, before redirects).
    public let originalURL: URL
    /// The request sent first (after the request modifier).
    public let request: URLRequest
    /// The request sent first (after the request modifier), as `URLSessionTask.originalRequest`
    /// gives it; for a transfer that never started, the request that would have been sent.
    public var originalRequest: URLRequest? { request }

    let key: RequestKey
    let priority: Float
    let redirectHandler: (any ImageDownloadRedirectHandler)?
    let downloader: ImageDownloader

    private struct State {
        var callers: [CancelToken: DownloadTask] = [:]
        var nextToken: CancelToken = 0
        /// No caller can join any more: the body arrived, or every caller cancelled.
        var closed = false
        var runner: Task<Void, Never>?
        var stopReason: StopReason?
        /// The transfer ended (delivered or failed).
        var finished = false
        /// The request last sent (after redirects).
        var currentRequest: URLRequest?
        /// The last response head received.
        var lastHead: ResponseHead?
        var expectedBytes: Int64 = -1
        var data = Data()
        var metrics: NetworkMetrics?
        /// Weak: the stand-in holds the transfer, so that it still reports it once the transfer ended.
        var urlTask = WeakURLTask()
    }

    struct WeakURLTask {
        weak var value: TransferURLSessionTask?
    }

    enum StopReason: Sendable {
        case cancelled
        /// No progress, or the whole transfer, took longer than `timeout` seconds.
        case timedOut(TimeInterval)
    }

    /// Where the transfer is, for ``task``'s `state`.
    enum Phase {
        case running
        case cancelling
        case completed
    }

    private let state: Mutex<State>

    init(request: URLRequest, url: URL, key: RequestKey, options: KingfisherParsedOptionsInfo, downloader: ImageDownloader) {
        self.request = request
        self.originalURL = url
        self.key = key
        self.priority = options.downloadPriority
        self.redirectHandler = options.redirectHandler
        self.downloader = downloader
        self.state = Mutex(State())
    }

    /// A transfer that never starts and takes no caller: what a cancellation error names when the
    /// caller was stopped before any transfer was attached to it (during a cache read, an async
    /// request modifier or a retry delay). Its ``originalRequest`` is a plain GET of `url`.
    init(unstartedFor url: URL, downloader: ImageDownloader) {
        let request = URLRequest(url: url)
        self.request = request
        self.originalURL = url
        self.key = RequestKey(request, url: url)
        self.priority = ImageDownloader.defaultDownloadPriority
        self.redirectHandler = nil
        self.downloader = downloader
        var state = State()
        state.closed = true
        state.stopReason = .cancelled
        self.state = Mutex(state)
    }

    /// The cancellation error of a caller stopped before any transfer was attached to it: it names
    /// an unstarted transfer of `url` (see ``init(unstartedFor:downloader:)``) and token 0.
    static func cancellationBeforeStart(url: URL, downloader: ImageDownloader) -> KingfisherError {
        .requestError(reason: .taskCancelled(task: SessionDataTask(unstartedFor: url, downloader: downloader), token: 0))
    }

    /// The transfer as a `URLSessionDataTask`, what ``SessionDelegate``'s hooks are given.
    ///
    /// Linux difference from Kingfisher: the transfer runs on AsyncHTTPClient, and
    /// FoundationNetworking's data tasks can only be made by a URLSession that would send them, so
    /// this is a stand-in subclass. Its `originalRequest`, `currentRequest`, `response`,
    /// `countOfBytesReceived`, `countOfBytesExpectedToReceive` and `state` are the transfer's,
    /// `taskIdentifier` is unique in the process, `cancel()` cancels the transfer for every caller,
    /// and `resume()` and `suspend()` do nothing. Every read gives the same object while one is
    /// held (the hooks of one transfer all get the same).
    public var task: URLSessionDataTask {
        state.withLock { state in
            if let task = state.urlTask.value { return task }
            let task = TransferURLSessionTask(self)
            state.urlTask.value = task
            return task
        }
    }

    /// The body bytes received so far; the whole body once the transfer ended.
    public var mutableData: Data { state.withLock { $0.data } }

    /// How the transfer went on the network; set when it ended with a 2xx response, `nil` before
    /// and after a failure. See ``NetworkMetrics``.
    public var metrics: NetworkMetrics? { state.withLock { $0.metrics } }

    /// The request last sent, after redirects.
    var currentRequest: URLRequest? { state.withLock { $0.currentRequest } }

    /// The last response received, as Foundation's type.
    var lastResponse: HTTPURLResponse? { state.withLock { $0.lastHead }?.urlResponse }

    /// The body length the last response declared; -1 when unknown.
    var expectedBytes: Int64 { state.withLock { $0.expectedBytes } }

    var phase: Phase {
        state.withLock { state in
            if state.finished { return .completed }
            return state.stopReason == nil ? .running : .cancelling
        }
    }

    /// Records the request about to be sent.
    func recordSending(_ request: URLRequest) {
        state.withLock { $0.currentRequest = request }
    }

    /// Records a response head and the body length it declares.
    func recordResponse(_ head: ResponseHead, expectedBytes: Int64) {
        state.withLock { state in
            state.lastHead = head
            state.expectedBytes = expectedBytes
            state.data = Data()
        }
    }

    /// Makes room for a body of `count` bytes.
    func reserveBody(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.data.reserveCapacity(count) }
    }

    /// Appends body bytes; returns the count received so far.
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        state.withLock { state in
            state.data.append(contentsOf: bytes)
            return Int64(state.data.count)
        }
    }

    /// Records the end of the transfer and its metrics (`nil` for a failure).
    func recordFinish(metrics: NetworkMetrics?) {
        state.withLock { state in
            state.finished = true
            state.metrics = metrics
        }
    }

    /// Whether the transfer still takes callers: `false` once its body arrived or every caller
    /// cancelled.
    public var isRunning: Bool { state.withLock { !$0.closed } }

    /// The number of callers waiting on this transfer.
    public var callerCount: Int { state.withLock { $0.callers.count } }

    /// Cancels the caller holding `token`; the transfer stops if it was the last one.
    public func cancel(token: CancelToken) {
        let (caller, stopTransfer) = state.withLock { state -> (DownloadTask?, Bool) in
            guard let caller = state.callers.removeValue(forKey: token) else { return (nil, false) }
            guard state.callers.isEmpty, !state.closed else { return (caller, false) }
            state.closed = true
            state.stopReason = state.stopReason ?? .cancelled
            return (caller, true)
        }
        if stopTransfer { stopRunner() }
        caller?.finish(.failure(.requestError(reason: .taskCancelled(task: self, token: token))))
    }

    /// Cancels every caller and stops the transfer.
    public func forceCancel() {
        let callers = state.withLock { state -> [CancelToken: DownloadTask] in
            let callers = state.callers
            state.callers = [:]
            if !state.closed {
                state.closed = true
                state.stopReason = state.stopReason ?? .cancelled
            }
            return callers
        }
        stopRunner()
        for (token, caller) in callers.sorted(by: { $0.key < $1.key }) {
            caller.finish(.failure(.requestError(reason: .taskCancelled(task: self, token: token))))
        }
    }

    /// Adds a caller; `nil` when the transfer takes no new callers.
    func add(_ caller: DownloadTask) -> CancelToken? {
        state.withLock { state in
            guard !state.closed else { return nil }
            let token = state.nextToken
            state.nextToken += 1
            state.callers[token] = caller
            return token
        }
    }

    /// Starts the transfer on a new Swift task.
    func start() {
        state.withLock { state in
            guard state.runner == nil else { return }
            state.runner = Task { await self.run() }
            if state.closed { state.runner?.cancel() }
        }
    }

    /// Stops the transfer because nothing arrived in time; callers get the timeout error.
    func stopForTimeout(_ timeout: TimeInterval) {
        let runner = state.withLock { state -> Task<Void, Never>? in
            guard state.stopReason == nil else { return nil }
            state.stopReason = .timedOut(timeout)
            return state.runner
        }
        runner?.cancel()
    }

    /// Why the transfer was stopped early, if it was.
    var stopReason: StopReason? { state.withLock { $0.stopReason } }

    /// The callers still waiting, for progress reports.
    var activeCallers: [DownloadTask] { state.withLock { Array($0.callers.values) } }

    /// Closes the transfer to new callers and hands over the ones still waiting.
    func closeAndTakeCallers() -> [DownloadTask] {
        state.withLock { state in
            state.closed = true
            let callers = state.callers.sorted { $0.key < $1.key }.map(\.value)
            state.callers = [:]
            return callers
        }
    }

    private func stopRunner() {
        let runner = state.withLock { $0.runner }
        runner?.cancel()
        downloader.removeSessionTask(self)
    }
}

/// What makes two requests the same transfer: URL, method, headers and body.
struct RequestKey: Hashable, Sendable {
    let url: URL
    let method: String
    let headers: [String: String]
    let body: Data?

    init(_ request: URLRequest, url: URL) {
        self.url = url
        self.method = request.httpMethod ?? "GET"
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers[name.lowercased()] = value
        }
        self.headers = headers
        self.body = request.httpBody
    }
}
