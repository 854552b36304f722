import KingfisherSynchronization

/// Lets at most `limit` transfers run per host; the others wait, highest priority first, then in
/// arrival order.
///
/// AsyncHTTPClient queues requests beyond its connection limit in arrival order; this small
/// scheduler in front of it is what makes `downloadPriority` matter.
final class HostScheduler: Sendable {
    private struct Waiter {
        let id: UInt64
        let priority: Float
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Host {
        var running = 0
        /// Sorted: highest priority first, then lowest id (arrival order).
        var waiting: [Waiter] = []
    }

    private struct State {
        var hosts: [String: Host] = [:]
        var nextID: UInt64 = 0
        var limit: Int
    }

    private let state: Mutex<State>

    init(limit: Int) {
        state = Mutex(State(limit: max(1, limit)))
    }

    /// The most transfers running at once per host.
    var limit: Int { state.withLock { $0.limit } }

    /// Changes the limit; a higher one starts waiting transfers at once, a lower one lets the
    /// running ones finish.
    func setLimit(_ limit: Int) {
        let started = state.withLock { state -> [Waiter] in
            state.limit = max(1, limit)
            var started: [Waiter] = []
            for (host, var entry) in state.hosts {
                while entry.running < state.limit, !entry.waiting.isEmpty {
                    started.append(entry.waiting.removeFirst())
                    entry.running += 1
                }
                state.hosts[host] = entry
            }
            return started
        }
        for waiter in started { waiter.continuation.resume() }
    }

    /// Waits for a slot on `host`; throws `CancellationError` if the Swift task is cancelled
    /// while waiting. Every successful return must be paired with one ``release(host:)``.
    func acquire(host: String, priority: Float) async throws {
        let id = state.withLock { state -> UInt64? in
            var entry = state.hosts[host, default: Host()]
            if entry.running < state.limit {
                entry.running += 1
                state.hosts[host] = entry
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> EnqueueOutcome in
                    var entry = state.hosts[host, default: Host()]
                    // A slot may have been freed between the two locks.
                    if entry.running < state.limit {
                        entry.running += 1
                        state.hosts[host] = entry
                        return .acquired
                    }
                    if Task.isCancelled { return .cancelled }
                    let waiter = Waiter(id: id, priority: priority, continuation: continuation)
                    let index = entry.waiting.firstIndex { $0.priority < priority } ?? entry.waiting.endIndex
                    entry.waiting.insert(waiter, at: index)
                    state.hosts[host] = entry
                    return .enqueued
                }
                switch outcome {
                case .acquired: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .enqueued: break // resumed by release(host:) or by the cancellation handler
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard var entry = state.hosts[host],
                      let index = entry.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = entry.waiting.remove(at: index)
                state.hosts[host] = entry
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Frees a slot on `host`, handing it to the first waiter if there is one.
    func release(host: String) {
        let next = state.withLock { state -> Waiter? in
            guard var entry = state.hosts[host] else { return nil }
            // After the limit was lowered, a freed slot over the new limit is not handed on.
            if entry.waiting.isEmpty || entry.running > state.limit {
                entry.running -= 1
                state.hosts[host] = entry.running > 0 ? entry : nil
                return nil
            }
            let waiter = entry.waiting.removeFirst()
            state.hosts[host] = entry
            return waiter
        }
        next?.continuation.resume()
    }

    /// Transfers running and waiting on `host` (for tests).
    func load(host: String) -> (running: Int, waiting: Int) {
        state.withLock { state in
            let entry = state.hosts[host] ?? Host()
            return (entry.running, entry.waiting.count)
        }
    }

    private enum EnqueueOutcome {
        case acquired
        case cancelled
        case enqueued
    }
}
