import Foundation
import Glibc
import KingfisherGTKShims

/// Makes GTK's main loop run `@MainActor` work: call ``initialize(drain:)`` once, first thing in
/// `main`, before creating any widget.
///
/// GTK owns the main thread and sleeps in GLib's `poll` between events; Swift's main actor is
/// libdispatch's main queue, which nobody drains while GTK sleeps. A GLib source bridges the two.
///
/// - ``MainQueueDrain/eventFD``, the default: libdispatch signals an eventfd whenever work is queued
///   on the main queue; a `g_unix_fd_add` source on it wakes GTK, resets the eventfd and drains the
///   queue. Work runs as soon as GTK is back in its loop, and an idle app does not wake at all.
///   Measured on this platform (Debian 12, 2 shared cores, Xvfb, 2,000 hops each way, median / 99th
///   percentile / max): a background thread's `Task { @MainActor in }` starts on the GTK thread
///   after 31 / 72 / 227 µs; a main-actor task's hop to a detached task starts after 22 / 62 / 180 µs.
/// - ``MainQueueDrain/polling(interval:)``, the fallback when libdispatch lacks the (private)
///   entry points: a GLib timeout drains the queue through `RunLoop.main` every `interval`, so work
///   waits about half an interval on average and the process wakes every interval even when idle.
///   Measured with the default 4 ms: 2.2 / 4.1 / 4.6 ms to the GTK thread.
///
/// When the process main thread is gone (an async `main` has called `dispatchMain()`, as the
/// Swift Testing runner does), libdispatch's worker threads already serve the main queue, the main
/// actor is not GTK's thread, and ``initialize(drain:)`` reports ``MainQueueDrain/none``.
public enum GTKMainLoop {
    /// How the main queue is drained from GTK's loop.
    public enum MainQueueDrain: Sendable, Equatable {
        /// An eventfd source, woken by libdispatch: no polling delay.
        case eventFD
        /// A GLib timeout that drains the queue every `interval`.
        case polling(interval: Duration)
        /// Nothing installed: the main queue is served elsewhere.
        case none
    }

    /// Which drain to install.
    public enum DrainPreference: Sendable, Equatable {
        /// The eventfd source when libdispatch offers it, else polling every 4 ms.
        case automatic
        /// Polling every `interval`, whatever libdispatch offers.
        case polling(interval: Duration)
    }

    /// The polling interval of ``DrainPreference/automatic``'s fallback.
    public static let defaultPollingInterval: Duration = .milliseconds(4)

    /// The drain installed by ``initialize(drain:)``; `nil` before it is called.
    @MainActor public private(set) static var drain: MainQueueDrain?

    /// Initialises GTK and installs the main-queue drain; calling it again returns the first result.
    ///
    /// - Returns: the drain installed.
    /// - Throws: ``GTKError/cannotOpenDisplay`` when GTK finds no display (set `DISPLAY`, or run under
    ///   `xvfb-run`).
    @MainActor @discardableResult
    public static func initialize(drain preference: DrainPreference = .automatic) throws(GTKError) -> MainQueueDrain {
        if let drain { return drain }
        guard gtk_init_check() != 0 else { throw .cannotOpenDisplay }
        let installed = installDrain(preference)
        drain = installed
        return installed
    }

    /// Runs GTK's main loop until ``quit()``; `@MainActor` work runs inside it.
    @MainActor public static func run() {
        let loop = g_main_loop_new(nil, 0)
        runningLoops.append(loop)
        g_main_loop_run(loop)
        g_main_loop_unref(loop)
    }

    /// Makes the innermost ``run()`` return.
    @MainActor public static func quit() {
        guard let loop = runningLoops.popLast() else { return }
        g_main_loop_quit(loop)
    }

    /// Runs the GLib events that are ready now, without waiting for more: for a caller that drives
    /// GTK itself instead of calling ``run()`` (a test on the test runner's main actor).
    @MainActor public static func runPendingEvents() {
        var budget = 1000
        while budget > 0, g_main_context_iteration(nil, 0) != 0 { budget -= 1 }
    }

    /// Runs GTK's ready events and lets other main-actor work in between until `condition` holds;
    /// returns `false` if `limit` passes first. For callers that do not run GTK's loop (tests).
    @MainActor public static func drive(until condition: () -> Bool, limit: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while true {
            runPendingEvents()
            if condition() { return true }
            guard ContinuousClock.now < deadline else { return false }
            await Task.yield()
        }
    }

    @MainActor private static var runningLoops: [OpaquePointer?] = []

    @MainActor private static func installDrain(_ preference: DrainPreference) -> MainQueueDrain {
        guard Thread.isMainThread else { return .none }
        if preference == .automatic, let hooks = DispatchMainQueueHooks.current {
            let fd = hooks.handle()
            if fd >= 0 {
                g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, { fd, _, _ in
                    // Reset the eventfd first: the drain does not, and a readable fd would spin GLib.
                    var count: UInt64 = 0
                    _ = read(fd, &count, MemoryLayout<UInt64>.size)
                    DispatchMainQueueHooks.current?.drain(nil)
                    return kf_g_source_continue
                }, nil, nil)
                return .eventFD
            }
        }
        let interval: Duration
        if case .polling(let requested) = preference {
            interval = requested
        } else {
            interval = defaultPollingInterval
        }
        let milliseconds = max(1, UInt32(clamping: interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
        g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { _ in
            // One non-blocking pass of the main run loop, which drains the main queue (public API).
            _ = RunLoop.main.run(mode: .default, before: .distantPast)
            return kf_g_source_continue
        }, nil, nil)
        return .polling(interval: .milliseconds(Int64(milliseconds)))
    }
}

/// Errors from setting up GTK.
public enum GTKError: Error, Sendable, Equatable {
    /// `gtk_init_check` failed: no display to connect to.
    case cannotOpenDisplay
}
