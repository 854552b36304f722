import Foundation
import KingfisherSynchronization

/// Runs one piece of work per key however many callers ask for it at once.
///
/// The first caller of a key starts the work; callers arriving while it runs join it and get
/// the same result. Each caller holds a ``Subscription``: cancelling it only detaches that
/// caller; the work itself is cancelled when its last caller leaves. Once a result is out, the
/// key is free again and the next caller starts fresh work.
final class SharedWork<Value: Sendable>: Sendable {
    typealias Callback = @Sendable (Result<Value, KingfisherError>) -> Void

    private struct Entry {
        let generation: UInt64
        var subscribers: [UInt64: Callback] = [:]
        var cancel: (@Sendable () -> Void)?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// One caller's place in a shared piece of work.
    struct Subscription: Sendable {
        fileprivate let work: SharedWork<Value>
        fileprivate let key: String
        fileprivate let generation: UInt64
        fileprivate let id: UInt64

        /// Detaches this caller (its callback will not run); cancels the work when no caller is left.
        func cancel() {
            work.leave(self)
        }
    }

    /// How many keys have work in flight; for tests and diagnostics.
    var inFlightCount: Int { state.withLock { $0.entries.count } }

    /// How many callers wait for work in flight, over all keys; for tests and diagnostics.
    var subscriberCount: Int { state.withLock { $0.entries.values.reduce(0) { $0 + $1.subscribers.count } } }

    /// Joins the work for `key`, starting it with `start` when none is running.
    ///
    /// `start` runs on the calling thread, outside any lock; it receives the function that ends
    /// the work (call it exactly once, from any thread, even synchronously) and returns how to
    /// cancel the work, or `nil` when it cannot be cancelled. `callback` runs once with the
    /// result, on the thread that finished the work, unless the subscription is cancelled first.
    func join(
        key: String,
        callback: @escaping Callback,
        start: (_ finish: @escaping Callback) -> (@Sendable () -> Void)?
    ) -> Subscription {
        let (subscription, isNew) = state.withLock { state -> (Subscription, Bool) in
            state.nextID += 1
            let id = state.nextID
            if var entry = state.entries[key] {
                entry.subscribers[id] = callback
                state.entries[key] = entry
                return (Subscription(work: self, key: key, generation: entry.generation, id: id), false)
            }
            var entry = Entry(generation: id)
            entry.subscribers[id] = callback
            state.entries[key] = entry
            return (Subscription(work: self, key: key, generation: id, id: id), true)
        }
        guard isNew else { return subscription }
        let generation = subscription.generation
        // The entry cannot lose its last caller before this returns: the first caller only gets
        // its subscription (the one way to leave) afterwards.
        let cancel = start { [self] result in complete(key: key, generation: generation, result: result) }
        state.withLock { state in
            guard var entry = state.entries[key], entry.generation == generation else { return }
            entry.cancel = cancel
            state.entries[key] = entry
        }
        return subscription
    }

    private func complete(key: String, generation: UInt64, result: Result<Value, KingfisherError>) {
        let callbacks = state.withLock { state -> [Callback] in
            guard let entry = state.entries[key], entry.generation == generation else { return [] }
            state.entries[key] = nil
            return entry.subscribers.sorted { $0.key < $1.key }.map(\.value)
        }
        for callback in callbacks { callback(result) }
    }

    private func leave(_ subscription: Subscription) {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            guard var entry = state.entries[subscription.key], entry.generation == subscription.generation,
                  entry.subscribers.removeValue(forKey: subscription.id) != nil else { return nil }
            guard entry.subscribers.isEmpty else {
                state.entries[subscription.key] = entry
                return nil
            }
            state.entries[subscription.key] = nil
            return entry.cancel
        }
        cancel?()
    }
}
