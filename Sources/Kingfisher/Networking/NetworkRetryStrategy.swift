import Foundation

/// Retries a failed download when the network allows it, as Kingfisher's strategy of that name.
///
/// Only response errors are retried (a cancellation, a request or a processing error stops at
/// once). While the network is usable the download is retried at once, at most
/// ``maxRetryCount`` times in all: Kingfisher has no such bound, so a server that keeps failing
/// would be asked again without end. While it is not usable, the strategy waits for the monitor
/// to report it usable again and then retries, passing the observer that waited as the decision's
/// `userInfo`, or stops after `timeoutInterval` seconds. The observer is also kept in the
/// context's ``RetryContext/userInfo`` while it waits, and every new decision on the context
/// cancels the observer found there, so at most one wait is pending per download. A caller
/// cancelled while the strategy waits is answered at once by the downloader.
public struct NetworkRetryStrategy: RetryStrategy {
    /// How long to wait for the network before giving up; `nil` waits for as long as it takes.
    public let timeoutInterval: TimeInterval?
    /// How many retries a download gets in all before it fails with its last error.
    public let maxRetryCount: Int
    private let networkMonitor: any NetworkMonitoring

    /// A strategy that waits up to `timeoutInterval` seconds (30 by default) for the network that
    /// `networkMonitor` watches (the system's, ``NetworkMonitor/default``, unless you inject one),
    /// and retries a download at most `maxRetryCount` times (10 by default).
    public init(
        timeoutInterval: TimeInterval? = 30, maxRetryCount: Int = 10,
        networkMonitor: any NetworkMonitoring = NetworkMonitor.default
    ) {
        self.timeoutInterval = timeoutInterval
        self.maxRetryCount = max(0, maxRetryCount)
        self.networkMonitor = networkMonitor
    }

    /// Retries at once when the network is usable, else when it comes back.
    public func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        if let previous = context.userInfo as? any NetworkObserver {
            previous.cancel()
            context.userInfo = nil
        }
        guard !context.error.isTaskCancelled, case .responseError = context.error,
              context.retriedCount < maxRetryCount else {
            retryHandler(.stop)
            return
        }
        if networkMonitor.isConnected {
            retryHandler(.retry(userInfo: nil))
            return
        }
        let waiting = PendingObserver()
        let observer = networkMonitor.observeConnectivity(timeoutInterval: timeoutInterval) { connected in
            retryHandler(connected ? .retry(userInfo: waiting.observer) : .stop)
        }
        waiting.observer = observer
        context.userInfo = observer
    }
}

/// The observer of a pending wait, handed to the wait's own callback, which may run before
/// `observeConnectivity` returns it.
private final class PendingObserver: Sendable {
    private let value = LockedBox<(any NetworkObserver)?>(nil)

    var observer: (any NetworkObserver)? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
