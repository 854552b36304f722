import Foundation

/// Retries a failed download once the network comes back, as Kingfisher's strategy of that name.
///
/// On a failure while the network is usable, the error has another cause and the download fails
/// at once. While it is not, the strategy waits for the monitor to report it usable again and then
/// retries, or stops after `timeoutInterval` seconds. A cancellation by the caller is never retried;
/// a caller cancelled while the strategy waits is answered at once by the downloader, and the wait
/// itself ends with the network's return or the timeout.
public struct NetworkRetryStrategy: RetryStrategy {
    /// How long to wait for the network before giving up; `nil` waits for as long as it takes.
    public let timeoutInterval: TimeInterval?
    private let networkMonitor: any NetworkMonitoring

    /// A strategy that waits up to `timeoutInterval` seconds (30 by default) for the network that
    /// `networkMonitor` watches (the system's, ``NetworkMonitor/default``, unless you inject one).
    public init(timeoutInterval: TimeInterval? = 30, networkMonitor: any NetworkMonitoring = NetworkMonitor.default) {
        self.timeoutInterval = timeoutInterval
        self.networkMonitor = networkMonitor
    }

    /// Retries when the network comes back; stops at once when it is already usable.
    public func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        guard !context.error.isTaskCancelled, !networkMonitor.isConnected else {
            retryHandler(.stop)
            return
        }
        _ = networkMonitor.observeConnectivity(timeoutInterval: timeoutInterval) { connected in
            retryHandler(connected ? .retry(userInfo: nil) : .stop)
        }
    }
}
