import Foundation
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLSessionDataTask` that stands for a ``SessionDataTask``: FoundationNetworking's own
/// tasks can only be made by a URLSession that would send them itself, so this subclass reports
/// the transfer instead (its requests, response, bytes and state), and `cancel()` cancels it.
///
/// `@unchecked Sendable`: the stored properties are constants set in `init`, and the transfer
/// guards its own state.
final class TransferURLSessionTask: URLSessionDataTask, @unchecked Sendable {
    private static let nextIdentifier = Atomic<Int>(1)

    private let identifier: Int
    private let request: URLRequest
    /// The transfer; held strongly (the transfer holds its stand-in weakly).
    let sessionTask: SessionDataTask?

    init(_ sessionTask: SessionDataTask) {
        identifier = Self.nextIdentifier.add(1, ordering: .relaxed).oldValue
        request = sessionTask.request
        self.sessionTask = sessionTask
        super.init()
    }

    override var taskIdentifier: Int { identifier }
    override var originalRequest: URLRequest? { request }
    override var currentRequest: URLRequest? { sessionTask?.currentRequest ?? request }
    override var response: URLResponse? { sessionTask?.lastResponse }
    override var countOfBytesReceived: Int64 { Int64(sessionTask?.mutableData.count ?? 0) }
    override var countOfBytesExpectedToReceive: Int64 { sessionTask?.expectedBytes ?? -1 }
    override var countOfBytesSent: Int64 { Int64(request.httpBody?.count ?? 0) }
    override var countOfBytesExpectedToSend: Int64 { Int64(request.httpBody?.count ?? 0) }

    override var state: URLSessionTask.State {
        switch sessionTask?.phase ?? .completed {
        case .running: return .running
        case .cancelling: return .canceling
        case .completed: return .completed
        }
    }

    /// Cancels the transfer for all its callers (as `SessionDataTask.forceCancel()`).
    override func cancel() { sessionTask?.forceCancel() }
    /// Does nothing: the downloader starts its transfers itself.
    override func resume() {}
    /// Does nothing: a transfer cannot be paused.
    override func suspend() {}
}
