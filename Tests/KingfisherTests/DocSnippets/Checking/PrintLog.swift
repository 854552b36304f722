import Foundation
import Synchronization

/// What documentation snippets print, kept instead of written: a snippet's enclosing type has a
/// `print` method that appends here, so the snippet's text calls `print` as a program would.
final class PrintLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// Every line printed so far, in order.
    var printed: [String] { lines.withLock { $0 } }

    /// Keeps one line: the items as `Swift.print` writes them, separated by spaces.
    func append(_ items: [Any]) {
        var line = ""
        for (index, item) in items.enumerated() {
            Swift.print(item, terminator: index == items.count - 1 ? "" : " ", to: &line)
        }
        lines.withLock { $0.append(line) }
    }
}
