import NIOCore
import Synchronization

/// Calls `onTimeout` once when `touch()` has not been called for `timeout`: the downloader's
/// idle timeout, covering the wait for the headers and every gap in the body.
///
/// It runs on an event loop's timer, so a transfer costs one scheduled task at a time, and
/// `touch()` is a single atomic store.
final class IdleWatchdog: Sendable {
    private let timeout: Int64
    private let eventLoop: any EventLoop
    private let onTimeout: @Sendable () -> Void
    private let lastActivity: Atomic<Int64>
    private let scheduled = Mutex<Scheduled<Void>?>(nil)
    private let stopped = Atomic<Bool>(false)

    init(timeout seconds: Double, eventLoop: any EventLoop, onTimeout: @escaping @Sendable () -> Void) {
        // Clamped to about 11 days so that the nanoseconds fit.
        self.timeout = Int64(min(max(seconds, 0.001), 1_000_000) * 1_000_000_000)
        self.eventLoop = eventLoop
        self.onTimeout = onTimeout
        self.lastActivity = Atomic(Self.now())
        schedule(after: timeout)
    }

    /// Records activity now.
    func touch() {
        lastActivity.store(Self.now(), ordering: .relaxed)
    }

    /// Stops watching; `onTimeout` is not called after this returns unless it already started.
    func stop() {
        stopped.store(true, ordering: .releasing)
        scheduled.withLock { $0?.cancel(); $0 = nil }
    }

    private func schedule(after nanoseconds: Int64) {
        scheduled.withLock { scheduled in
            guard !stopped.load(ordering: .acquiring) else { return }
            scheduled = eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) { [self] in
                check()
            }
        }
    }

    private func check() {
        guard !stopped.load(ordering: .acquiring) else { return }
        let idle = Self.now() - lastActivity.load(ordering: .relaxed)
        if idle >= timeout {
            stopped.store(true, ordering: .releasing)
            onTimeout()
        } else {
            schedule(after: timeout - idle)
        }
    }

    private static func now() -> Int64 {
        Int64(truncatingIfNeeded: NIODeadline.now().uptimeNanoseconds)
    }
}
