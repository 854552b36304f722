import Foundation
import KingfisherGTK
import KingfisherGTKShims
import Synchronization

/// Measures how long the main thread works in each frame: the time between two frames of a
/// widget's clock, less the time GLib spent waiting in `poll` between them. What is left is layout,
/// drawing and every main-actor job (`setImage`, completions) that ran in that frame.
@MainActor
public final class FrameProbe {
    /// Nanoseconds GLib has spent waiting in `poll` since ``install()``; only the main thread polls.
    private static let idle = Atomic<UInt64>(0)
    private static var installed = false

    /// The main-thread work of each frame measured so far, in milliseconds.
    public private(set) var frameWork: [Double] = []
    private var ticker: FrameTicker?
    private var last: (time: UInt64, idle: UInt64)?

    /// A probe; call ``start(on:)`` to begin.
    public init() {}

    /// Wraps GLib's poll function so idle time is counted (once per process).
    public static func install() {
        guard !installed else { return }
        installed = true
        g_main_context_set_poll_func(nil) { fds, count, timeout in
            let start = DispatchTime.now().uptimeNanoseconds
            let result = g_poll(fds, count, timeout)
            FrameProbe.idle.add(DispatchTime.now().uptimeNanoseconds - start, ordering: .relaxed)
            return result
        }
    }

    /// Starts measuring each frame of `widget`'s clock.
    public func start(on widget: GtkWidgetPointer) {
        Self.install()
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
        let now = DispatchTime.now().uptimeNanoseconds
        let idle = Self.idle.load(ordering: .relaxed)
        if let last {
            let busy = Double((now - last.time) - min(now - last.time, idle - last.idle)) / 1_000_000
            frameWork.append(busy)
        }
        last = (now, idle)
    }

    /// The `fraction` quantile of the frames measured (0.5: the median), in milliseconds.
    public func quantile(_ fraction: Double) -> Double {
        let sorted = frameWork.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * fraction))]
    }
}
