import KingfisherSynchronization

/// Thrown by ``withWatchdog(_:_:)`` when the operation overran its limit.
public struct WatchdogTimeout: Error, CustomStringConvertible, Sendable {
    /// The limit that was exceeded.
    public let limit: Duration

    /// A readable explanation for test failure output.
    public var description: String { "operation did not finish within \(limit)" }
}

/// Runs `operation`, failing with ``WatchdogTimeout`` if it takes longer than `limit` (four times
/// `limit` under a sanitizer, which slows everything alike).
///
/// A safety net so an awaited event that never comes fails the test instead of hanging it; a
/// test must never rely on the limit to pass. On a timeout `operation` is cancelled and left
/// behind: the call returns at once even when the operation is stuck in a wait that ignores
/// cancellation (a NIO future, a continuation nobody resumes).
@discardableResult
public func withWatchdog<T: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let pending = Mutex<CheckedContinuation<Result<T, any Error>, Never>?>(nil)
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        pending.withLock { $0.take() }?.resume(returning: result)
    }
    let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
        pending.withLock { $0 = continuation }
        let work = Task {
            do { finish(.success(try await operation())) } catch { finish(.failure(error)) }
        }
        Task {
            let allowed = runsUnderSanitizer ? limit * 4 : limit
            try? await Task.sleep(for: allowed)
            work.cancel()
            finish(.failure(WatchdogTimeout(limit: allowed)))
        }
    }
    return try result.get()
}
