import Foundation
import KingfisherSynchronization

/// What a ``RetryStrategy`` knows about the failure it decides on.
///
/// One context follows one caller through all its attempts. It carries the URL the caller asked
/// for and, when the download was started by ``KingfisherManager``, the ``Source`` it retrieves.
public final class RetryContext: Sendable {
    /// The URL the caller asked for (before any request modifier).
    public let url: URL
    /// The source being retrieved when ``KingfisherManager`` started the download (an
    /// alternative source when the manager moved on to one); `nil` for a direct download.
    public let source: Source?

    private struct State: Sendable {
        var error: KingfisherError
        var retriedCount = 0
        var userInfo: (any Sendable)?
    }
    private let state: Mutex<State>

    init(url: URL, source: Source? = nil, error: KingfisherError) {
        self.url = url
        self.source = source
        self.state = Mutex(State(error: error))
    }

    /// The error of the attempt that just failed.
    public var error: KingfisherError { state.withLock { $0.error } }

    /// How many retries were made before this decision; `0` on the first failure.
    public var retriedCount: Int { state.withLock { $0.retriedCount } }

    /// The value passed with the last ``RetryDecision/retry(userInfo:)``, if any; a strategy may
    /// also keep here what its next decision on the same download needs (as
    /// ``NetworkRetryStrategy`` keeps the observer it waits with).
    public var userInfo: (any Sendable)? {
        get { state.withLock { $0.userInfo } }
        set { state.withLock { $0.userInfo = newValue } }
    }

    func recordRetry(userInfo: (any Sendable)?) {
        state.withLock {
            $0.retriedCount += 1
            $0.userInfo = userInfo
        }
    }

    func recordFailure(_ error: KingfisherError) {
        state.withLock { $0.error = error }
    }
}

/// A ``RetryStrategy``'s answer.
public enum RetryDecision: Sendable {
    /// Try again; `userInfo` reaches the next decision through ``RetryContext/userInfo``.
    case retry(userInfo: (any Sendable)?)
    /// Stop and fail with the last error.
    case stop
}

/// Decides whether a failed download is tried again, set with `.retryStrategy(_:)`.
///
/// The downloader asks after every failed attempt except a cancellation by the caller, which is
/// never retried. The strategy must call `retryHandler` exactly once (later calls are ignored),
/// on any thread, after whatever delay it wants; the caller's ``DownloadTask`` can be cancelled
/// during that delay.
public protocol RetryStrategy: Sendable {
    /// Calls `retryHandler` with the decision for `context`.
    func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void)
}

/// Retries response errors (status, transfer, timeout, size...) up to a count, after a delay.
///
/// Request errors (a modifier returning `nil`, an invalid URL), processing errors and
/// cancellations are not retried. The delay goes through `sleep`, `Task.sleep` by default; pass
/// your own to drive it from a test clock.
public struct DelayRetryStrategy: RetryStrategy {
    /// How long to wait before each retry.
    public enum Interval: Sendable {
        /// The same number of seconds before every retry.
        case seconds(TimeInterval)
        /// `n × value` seconds before the n-th retry (value, 2 × value, 3 × value...).
        case accumulated(TimeInterval)
        /// Seconds computed from the number of retries already made (0 for the first retry).
        case custom(block: @Sendable (_ retriedCount: Int) -> TimeInterval)

        /// The delay before the retry that follows `retriedCount` earlier retries.
        public func timeInterval(for retriedCount: Int) -> TimeInterval {
            switch self {
            case .seconds(let value): return value
            case .accumulated(let value): return Double(retriedCount + 1) * value
            case .custom(let block): return block(retriedCount)
            }
        }
    }

    /// Waits for the given number of seconds.
    public typealias Sleep = @Sendable (TimeInterval) async -> Void

    /// The number of retries after the first attempt.
    public let maxRetryCount: Int
    /// The delay before each retry.
    public let retryInterval: Interval
    private let sleep: Sleep

    /// A strategy of at most `maxRetryCount` retries spaced by `retryInterval` (3 s by default).
    public init(maxRetryCount: Int, retryInterval: Interval = .seconds(3), sleep: Sleep? = nil) {
        self.maxRetryCount = maxRetryCount
        self.retryInterval = retryInterval
        self.sleep = sleep ?? { seconds in
            try? await Task.sleep(for: .seconds(seconds))
        }
    }

    /// Retries a response error while retries remain, after the interval's delay.
    public func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        let error = context.error
        guard context.retriedCount < maxRetryCount, !error.isTaskCancelled,
              case .responseError = error else {
            retryHandler(.stop)
            return
        }
        let delay = retryInterval.timeInterval(for: context.retriedCount)
        guard delay.isFinite else {
            retryHandler(.stop)
            return
        }
        guard delay > 0 else {
            retryHandler(.retry(userInfo: nil))
            return
        }
        let sleep = self.sleep
        Task {
            await sleep(delay)
            retryHandler(.retry(userInfo: nil))
        }
    }
}
