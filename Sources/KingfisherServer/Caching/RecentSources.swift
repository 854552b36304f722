import KingfisherSynchronization

/// The sources fetched lately, as far as a fixed number of them: the pipeline keeps a source's
/// original once a second rendition of it is made, so that sources asked for at one size only
/// (most, on a thumbnail service) never fill the disk cache with originals.
final class RecentSources: Sendable {
    private struct State {
        var members: Set<String> = []
        /// Insertion order, a ring: the oldest member is forgotten first.
        var order: [String] = []
        var next = 0
    }

    /// The most sources remembered.
    let capacity: Int
    private let state = Mutex(State())

    /// A memory of at most `capacity` sources.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Notes `source`; whether it had been noted already.
    func noteFetched(_ source: String) -> Bool {
        state.withLock { state in
            guard !state.members.contains(source) else { return true }
            if state.order.count < capacity {
                state.order.append(source)
            } else {
                state.members.remove(state.order[state.next])
                state.order[state.next] = source
                state.next = (state.next + 1) % capacity
            }
            state.members.insert(source)
            return false
        }
    }
}
