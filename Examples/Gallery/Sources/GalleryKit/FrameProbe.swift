import Foundation
import Glibc
import KingfisherGTK

/// Measures how much CPU time the main thread spends in each frame of a widget's clock: layout,
/// drawing and every main-actor job (`setImage`, completions) that ran between two frames.
///
/// It reads the thread's own CPU clock (`CLOCK_THREAD_CPUTIME_ID`), so time the thread spent
/// waiting, or preempted by other processes, does not count.
@MainActor
public final class FrameProbe {
    /// The main-thread CPU time of each frame measured so far, in milliseconds.
    public private(set) var frameWork: [Double] = []
    private var ticker: FrameTicker?
    private var last: Double?

    /// A probe; call ``start(on:)`` to begin.
    public init() {}

    /// Starts measuring each frame of `widget`'s clock; call it on the thread GTK runs on.
    public func start(on widget: GtkWidgetPointer) {
        ticker = FrameTicker(widget: widget) { [weak self] _ in
            self?.record()
            return true
        }
    }

    /// Stops measuring.
    public func stop() {
        ticker?.stop()
        ticker = nil
        last = nil
    }

    private func record() {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        let milliseconds = Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
        if let last { frameWork.append(milliseconds - last) }
        last = milliseconds
    }

    /// The `fraction` quantile of the frames measured (0.5: the median), in milliseconds.
    public func quantile(_ fraction: Double) -> Double {
        let sorted = frameWork.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }
}
