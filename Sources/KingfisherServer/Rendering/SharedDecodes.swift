import Foundation
import Kingfisher
import KingfisherSynchronization

/// Reduced decodes of a source shared by the jobs that render it at the same time (a page's
/// `srcset`, a CDN warming several widths): the source is decoded once per decoded size, not once
/// per rendition.
///
/// Jobs of one source take turns through its decode (``enter(_:)`` waits while another job of the
/// same source has not decoded yet), so the second job finds the kept original on disk and, when it
/// needs the same decoded size, the image itself. A decode is kept only while another job of its
/// source is running and within ``budget`` bytes in all; the last job to leave drops its source's
/// images, so a server whose requests each name a new source holds nothing extra.
final class SharedDecodes: Sendable {
    /// The most pixel bytes kept at once.
    let budget: Int

    private struct Source {
        var jobs = 0
        /// Whether a job of this source holds the turn to fetch and decode.
        var turnTaken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var images: [Size: KFCrossPlatformImage] = [:]
        /// The pixel bytes of `images`.
        var bytes = 0
    }

    private struct Size: Hashable {
        let width: Int
        let height: Int
    }

    private struct State {
        var sources: [String: Source] = [:]
        var bytes = 0
        var reuses = 0
    }

    private let state = Mutex(State())

    /// Sharing within `budget` bytes of decoded pixels.
    init(budget: Int) {
        self.budget = budget
    }

    /// Joins the jobs of `source`, waiting while another of them holds the turn to decode; the
    /// returned ticket holds the turn until ``Ticket/decoded()`` or ``Ticket/leave()``.
    func enter(_ source: String) async -> Ticket {
        let ticket = Ticket(source: source, owner: self)
        let mustWait = state.withLock { state in
            state.sources[source, default: Source()].jobs += 1
            if state.sources[source]?.turnTaken == true { return true }
            state.sources[source]?.turnTaken = true
            return false
        }
        if mustWait {
            await withCheckedContinuation { continuation in
                let handedOver = state.withLock { state -> Bool in
                    // The turn may have been passed on between the two locks.
                    if state.sources[source]?.turnTaken == false {
                        state.sources[source]?.turnTaken = true
                        return true
                    }
                    state.sources[source]?.waiting.append(continuation)
                    return false
                }
                if handedOver { continuation.resume() }
            }
        }
        return ticket
    }

    /// The decode of `source` at `width`×`height` another job kept, if any.
    func image(of source: String, width: Int, height: Int) -> KFCrossPlatformImage? {
        state.withLock { state in
            let image = state.sources[source]?.images[Size(width: width, height: height)]
            if image != nil { state.reuses += 1 }
            return image
        }
    }

    /// Keeps `image`, the decode of `source` at `width`×`height`, when another job of that source is
    /// running and the budget allows.
    func keep(_ image: KFCrossPlatformImage, of source: String, width: Int, height: Int) {
        let cost = image.frames.reduce(0) { $0 + $1.pixels.count }
        state.withLock { state in
            guard let entry = state.sources[source], entry.jobs > 1, state.bytes + cost <= budget else { return }
            let size = Size(width: width, height: height)
            guard entry.images[size] == nil else { return }
            state.sources[source]?.images[size] = image
            state.sources[source]?.bytes += cost
            state.bytes += cost
        }
    }

    /// The pixel bytes kept now.
    var keptBytes: Int { state.withLock { $0.bytes } }

    /// How many decodes jobs have taken from other jobs so far.
    var reuseCount: Int { state.withLock { $0.reuses } }

    /// How many jobs of `source` are running.
    func jobCount(of source: String) -> Int { state.withLock { $0.sources[source]?.jobs ?? 0 } }

    /// Passes `source`'s turn to the next waiting job, or frees it.
    fileprivate func passTurn(of source: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.sources[source] != nil else { return nil }
            if let first = state.sources[source]?.waiting.first {
                state.sources[source]?.waiting.removeFirst()
                return first
            }
            state.sources[source]?.turnTaken = false
            return nil
        }
        next?.resume()
    }

    /// Removes one job of `source`; the last one drops the source's images.
    fileprivate func leave(_ source: String) {
        state.withLock { state in
            guard var entry = state.sources[source] else { return }
            entry.jobs -= 1
            if entry.jobs <= 0 {
                state.bytes -= entry.bytes
                state.sources[source] = nil
            } else {
                state.sources[source] = entry
            }
        }
    }

    /// One job's place among the jobs of a source: its turn to decode, then its membership.
    final class Ticket: Sendable {
        /// The source's key.
        let source: String
        private let owner: SharedDecodes
        /// Whether the turn was passed on, and whether the job has left.
        private let progress = Mutex((passed: false, left: false))

        fileprivate init(source: String, owner: SharedDecodes) {
            self.source = source
            self.owner = owner
        }

        /// The decoded image kept at `width`×`height`, if any.
        func image(width: Int, height: Int) -> KFCrossPlatformImage? {
            owner.image(of: source, width: width, height: height)
        }

        /// Keeps `image` for the other jobs of the source, if any are running.
        func keep(_ image: KFCrossPlatformImage, width: Int, height: Int) {
            owner.keep(image, of: source, width: width, height: height)
        }

        /// The job has its decode (or needs none): the next job of the source may go on.
        func decoded() {
            let pass = progress.withLock { progress -> Bool in
                defer { progress.passed = true }
                return !progress.passed
            }
            if pass { owner.passTurn(of: source) }
        }

        /// The job is over: passes the turn if it still held it, and leaves the source.
        func leave() {
            decoded()
            let leaves = progress.withLock { progress -> Bool in
                defer { progress.left = true }
                return !progress.left
            }
            if leaves { owner.leave(source) }
        }
    }
}

/// Where a ``RenditionProcessor`` finds the shared decodes of the job it runs for; empty when the
/// job does not share (its first step is not a resize, or its source is a file).
final class DecodeShareBox: Sendable {
    private let ticket = Mutex<SharedDecodes.Ticket?>(nil)

    /// Gives the processor `ticket`.
    func attach(_ ticket: SharedDecodes.Ticket) {
        self.ticket.withLock { $0 = ticket }
    }

    /// The ticket attached, if any.
    var current: SharedDecodes.Ticket? { ticket.withLock { $0 } }
}
