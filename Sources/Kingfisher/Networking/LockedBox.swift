import KingfisherSynchronization

/// A `Mutex` in a class, for state that escaping closures share.
final class LockedBox<Value>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with the value locked.
    func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}
