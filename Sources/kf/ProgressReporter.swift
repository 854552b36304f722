import Foundation
import Synchronization

/// Progress of long work on standard error: a bar redrawn in place on a terminal, otherwise a
/// plain line every tenth of the work.
final class ProgressReporter: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var lastTenth = 0
        var done = 0
        var failed = 0
    }

    private let total: Int
    private let onTerminal: Bool
    private let state = Mutex(State())

    init(total: Int, onTerminal: Bool) {
        self.total = total
        self.onTerminal = onTerminal
    }

    /// Records `done` items finished, `failed` of them failed; draws at most 20 times a second.
    func update(done: Int, failed: Int) {
        let text = state.withLock { state -> String? in
            state.done = max(state.done, done)
            state.failed = max(state.failed, failed)
            if onTerminal {
                let now = ContinuousClock.now
                if let last = state.lastDraw, now - last < .milliseconds(50), done < total { return nil }
                state.lastDraw = now
                return "\r" + bar(done: state.done, failed: state.failed)
            }
            let tenth = total == 0 ? 10 : state.done * 10 / total
            guard tenth > state.lastTenth else { return nil }
            state.lastTenth = tenth
            return "prefetch: \(state.done)/\(total) done, \(state.failed) failed\n"
        }
        if let text { FileHandle.standardError.write(Data(text.utf8)) }
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        guard onTerminal else { return }
        let text = state.withLock { "\r" + bar(done: $0.done, failed: $0.failed) + "\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }

    private func bar(done: Int, failed: Int) -> String {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let percent = total == 0 ? 100 : done * 100 / total
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(done)/\(total) \(percent)%" + (failed > 0 ? ", \(failed) failed" : "")
    }
}

/// The prefetcher's final counts and failed URLs, handed from its queue to the waiting thread.
final class OutcomeBox: Sendable {
    private let state = Mutex<(PrefetchCommand.Summary, [String])>((.init(completed: 0, skipped: 0, failed: 0), []))

    func set(_ summary: PrefetchCommand.Summary, failed: [String]) {
        state.withLock { $0 = (summary, failed) }
    }

    var value: (PrefetchCommand.Summary, [String]) { state.withLock { $0 } }
}
