/// Thrown by ``withWatchdog(_:_:)`` when the operation overran its limit.
public struct WatchdogTimeout: Error, CustomStringConvertible, Sendable {
    /// The limit that was exceeded.
    public let limit: Duration

    /// A readable explanation for test failure output.
    public var description: String { "operation did not finish within \(limit)" }
}

/// Runs `operation`, failing with ``WatchdogTimeout`` and cancelling it if it takes longer than
/// `limit`.
///
/// A safety net so an awaited event that never comes fails the test instead of hanging it; a
/// test must never rely on the limit to pass. `operation` must react to cancellation for the
/// timeout to take effect.
@discardableResult
public func withWatchdog<T: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw WatchdogTimeout(limit: limit)
        }
        return result
    }
}
