import KingfisherSynchronization

/// A latch that holds ``TestResponse/held(_:gate:)`` and ``TestResponse/heldBody(_:gate:)``
/// responses back until the test opens it.
///
/// Once opened it stays open: responses that reach it later go out at once. ``waitUntilWaiting(count:)``
/// lets a test know a request has reached the server without sleeping.
public final class TestGate: Sendable {
    private struct Watcher {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var isOpen = false
        var nextID = 0
        /// Responses waiting, by ticket; each action resumes its response on its own event loop.
        var held: [Int: @Sendable () -> Void] = [:]
        var watchers: [Int: Watcher] = [:]
    }

    /// What ``hold(_:)`` did with a response.
    enum Hold {
        /// The gate is open: send now, the action was not stored.
        case open
        /// Stored under this ticket until ``open()`` or ``release(_:)``.
        case held(Int)
    }

    private let state = Mutex(State())

    /// Creates a closed gate.
    public init() {}

    /// Opens the gate for good, releasing every response waiting on it now and letting later ones
    /// through at once.
    public func open() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            state.isOpen = true
            let actions = state.held.sorted { $0.key < $1.key }.map(\.value)
            state.held = [:]
            return actions
        }
        for action in actions {
            action()
        }
    }

    /// Whether ``open()`` has been called.
    public var isOpen: Bool {
        state.withLock { $0.isOpen }
    }

    /// The number of responses currently held on this gate (a client that disconnects stops counting).
    public var waitingCount: Int {
        state.withLock { $0.held.count }
    }

    /// Returns once at least `count` responses are held on this gate at the same time.
    ///
    /// Event-driven, no polling. It never returns if that never happens (for example after ``open()``),
    /// so run it under a watchdog; it returns early when the calling task is cancelled.
    public func waitUntilWaiting(count: Int) async {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { state -> Bool in
                    if state.held.count >= count || Task.isCancelled {
                        return true
                    }
                    state.watchers[id] = Watcher(count: count, continuation: continuation)
                    return false
                }
                if satisfied {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Parks `action` until the gate opens; returns `.open` without storing it if it already is.
    func hold(_ action: @escaping @Sendable () -> Void) -> Hold {
        let (result, ready) = state.withLock { state -> (Hold, [Watcher]) in
            if state.isOpen {
                return (.open, [])
            }
            state.nextID += 1
            let ticket = state.nextID
            state.held[ticket] = action
            let heldCount = state.held.count
            let ready = state.watchers.filter { $0.value.count <= heldCount }
            for id in ready.keys {
                state.watchers[id] = nil
            }
            return (.held(ticket), Array(ready.values))
        }
        for watcher in ready {
            watcher.continuation.resume()
        }
        return result
    }

    /// Forgets a held response without running it (its connection went away).
    func release(_ ticket: Int) {
        _ = state.withLock { $0.held.removeValue(forKey: ticket) }
    }
}
