import Foundation
import KingfisherSynchronization

/// The most recently used renditions, bounded by their total bytes; thread-safe.
final class RenditionMemoryCache: Sendable {
    private struct Node {
        var key: String
        var value: Rendition
        var previous: Int?
        var next: Int?
    }

    private struct State {
        var index: [String: Int] = [:]
        var nodes: [Node] = []
        var free: [Int] = []
        var head: Int?
        var tail: Int?
        var totalBytes = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    /// A cache holding at most `limit` bytes of renditions.
    init(limit: Int) {
        self.limit = limit
    }

    /// The rendition for `key`, now the most recently used.
    func value(forKey key: String) -> Rendition? {
        state.withLock { state in
            guard let slot = state.index[key] else { return nil }
            Self.unlink(slot, in: &state)
            Self.pushFront(slot, in: &state)
            return state.nodes[slot].value
        }
    }

    /// Stores `value` for `key`, evicting the least recently used renditions over the limit.
    func store(_ value: Rendition, forKey key: String) {
        guard value.bytes.count <= limit else { return }
        state.withLock { state in
            if let slot = state.index[key] {
                state.totalBytes -= state.nodes[slot].value.bytes.count
                state.nodes[slot].value = value
                Self.unlink(slot, in: &state)
                Self.pushFront(slot, in: &state)
            } else {
                let node = Node(key: key, value: value)
                let slot: Int
                if let reused = state.free.popLast() {
                    state.nodes[reused] = node
                    slot = reused
                } else {
                    state.nodes.append(node)
                    slot = state.nodes.count - 1
                }
                state.index[key] = slot
                Self.pushFront(slot, in: &state)
            }
            state.totalBytes += value.bytes.count
            while state.totalBytes > limit, let last = state.tail {
                Self.unlink(last, in: &state)
                state.totalBytes -= state.nodes[last].value.bytes.count
                state.index[state.nodes[last].key] = nil
                state.nodes[last].value = Rendition.empty
                state.free.append(last)
            }
        }
    }

    /// The bytes held.
    var totalBytes: Int { state.withLock { $0.totalBytes } }

    private static func unlink(_ slot: Int, in state: inout State) {
        let node = state.nodes[slot]
        if let previous = node.previous { state.nodes[previous].next = node.next } else { state.head = node.next }
        if let next = node.next { state.nodes[next].previous = node.previous } else { state.tail = node.previous }
        state.nodes[slot].previous = nil
        state.nodes[slot].next = nil
    }

    private static func pushFront(_ slot: Int, in state: inout State) {
        state.nodes[slot].next = state.head
        state.nodes[slot].previous = nil
        if let head = state.head { state.nodes[head].previous = slot }
        state.head = slot
        if state.tail == nil { state.tail = slot }
    }
}

extension Rendition {
    /// A placeholder for freed slots.
    static let empty = Rendition(bytes: Data(), key: "")
}
