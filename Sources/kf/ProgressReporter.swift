import Foundation
import KingfisherSynchronization

/// Progress of long work on standard error: a bar redrawn in place on a terminal, otherwise a
/// plain line every tenth of the work, `LABEL: 3/10 done, 0 failed`.
final class ProgressReporter: Sendable {
    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var lastTenth = 0
        var done = 0
        var failed = 0
    }

    private let label: String
    private let total: Int
    private let onTerminal: Bool
    private let state = Mutex(State())

    /// A reporter for `total` items; `label` starts each plain line (`fetch`, `prefetch`).
    init(label: String, total: Int, onTerminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.total = total
        self.onTerminal = onTerminal
    }

    /// Records `done` items finished, `failed` of them failed; draws at most 20 times a second.
    ///
    /// Lines are written under the lock, so reports from several threads appear in order.
    func update(done: Int, failed: Int) {
        state.withLock { state in
            guard let text = line(&state, done: done, failed: failed) else { return }
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    private func line(_ state: inout State, done: Int, failed: Int) -> String? {
        state.done = max(state.done, done)
        state.failed = max(state.failed, failed)
        if onTerminal {
            let now = ContinuousClock.now
            if let last = state.lastDraw, now - last < .milliseconds(50), state.done < total { return nil }
            state.lastDraw = now
            return "\r" + bar(done: state.done, failed: state.failed)
        }
        let tenth = total == 0 ? 10 : state.done * 10 / total
        guard tenth > state.lastTenth else { return nil }
        state.lastTenth = tenth
        return "\(label): \(state.done)/\(total) done, \(state.failed) failed\n"
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        guard onTerminal else { return }
        state.withLock { state in
            FileHandle.standardError.write(Data(("\r" + bar(done: state.done, failed: state.failed) + "\n").utf8))
        }
    }

    private func bar(done: Int, failed: Int) -> String {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let percent = total == 0 ? 100 : done * 100 / total
        return "\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + "] \(done)/\(total) \(percent)%" + (failed > 0 ? ", \(failed) failed" : "")
    }
}
