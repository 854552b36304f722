import NIOCore
import KingfisherSynchronization

/// Tells when a transfer has made no progress for its timeout: the downloader's idle timeout,
/// covering the wait for the headers and every gap in the body.
///
/// Progress is the response head, or at least ``minimumProgressBytes`` of body since the last
/// progress. A server dribbling a few bytes at a time (a slow-loris origin) therefore cannot hold a
/// transfer, its connection and its slot on the host open for ever: fewer bytes than that in a
/// whole timeout is a stall, however often they come.
///
/// `touch()` is one atomic store. The checks are made by the downloader's ``WatchdogSweeper``
/// rather than a timer per transfer, because arming and cancelling a timer on an event loop from
/// another thread wakes that loop each time, which cost about a tenth of the downloader's CPU
/// in the benchmark.
final class IdleWatchdog: Sendable {
    let timeout: Int64
    private let onTimeout: @Sendable () -> Void
    private let lastActivity: Atomic<Int64>
    private let done = Atomic<Bool>(false)
    /// Body bytes received since the last progress; only the transfer's reading task adds to it.
    private let pendingBytes = Atomic<Int>(0)

    /// The body bytes that count as progress: 1 KiB, a trickle of under about 70 bytes per second
    /// at the default 15-second timeout.
    static let minimumProgressBytes = 1024

    init(timeout seconds: Double, onTimeout: @escaping @Sendable () -> Void) {
        // Clamped to about 11 days so that the nanoseconds fit.
        self.timeout = Int64(min(max(seconds, 0.001), 1_000_000) * 1_000_000_000)
        self.onTimeout = onTimeout
        self.lastActivity = Atomic(WatchdogSweeper.now())
    }

    /// Records progress now (the response head arrived).
    func touch() {
        pendingBytes.store(0, ordering: .relaxed)
        lastActivity.store(WatchdogSweeper.now(), ordering: .relaxed)
    }

    /// Records `count` body bytes; they are progress once ``minimumProgressBytes`` have come
    /// since the last progress. Call from one task at a time (the transfer's body loop).
    func received(_ count: Int) {
        let pending = pendingBytes.load(ordering: .relaxed) + count
        if pending >= Self.minimumProgressBytes {
            touch()
        } else {
            pendingBytes.store(pending, ordering: .relaxed)
        }
    }

    /// Ends the watch: `onTimeout` is not called after this unless it already started.
    func stop() {
        done.store(true, ordering: .releasing)
    }

    /// Fires `onTimeout` (once) if the transfer has been idle for its timeout at `now`; returns
    /// whether the watch is over.
    func check(now: Int64) -> Bool {
        guard !done.load(ordering: .acquiring) else { return true }
        guard now - lastActivity.load(ordering: .relaxed) >= timeout else { return false }
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return true }
        onTimeout()
        return true
    }
}

/// One loop per downloader that checks the watchdogs of its running transfers, a few times per
/// timeout; it runs only while there are transfers.
final class WatchdogSweeper: Sendable {
    private struct State {
        var watchdogs: [ObjectIdentifier: IdleWatchdog] = [:]
        var running = false
    }
    private let state = Mutex(State())

    /// Monotonic nanoseconds.
    static func now() -> Int64 {
        Int64(truncatingIfNeeded: NIODeadline.now().uptimeNanoseconds)
    }

    /// Starts watching `watchdog`.
    func add(_ watchdog: IdleWatchdog) {
        let start = state.withLock { state -> Bool in
            state.watchdogs[ObjectIdentifier(watchdog)] = watchdog
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start {
            Task.detached { [self] in await sweep() }
        }
    }

    /// Stops watching `watchdog`; it does not fire after this returns unless it already started.
    func remove(_ watchdog: IdleWatchdog) {
        watchdog.stop()
        state.withLock { _ = $0.watchdogs.removeValue(forKey: ObjectIdentifier(watchdog)) }
    }

    private func sweep() async {
        while true {
            let interval = state.withLock { state -> Int64? in
                guard let shortest = state.watchdogs.values.map(\.timeout).min() else {
                    state.running = false
                    return nil
                }
                // A few checks per timeout: a stall is reported within about 1.25 × the timeout.
                return min(max(shortest / 8, 5_000_000), 250_000_000)
            }
            guard let interval else { return }
            try? await Task.sleep(for: .nanoseconds(interval))
            let now = Self.now()
            let watchdogs = state.withLock { Array($0.watchdogs.values) }
            for watchdog in watchdogs where watchdog.check(now: now) {
                remove(watchdog)
            }
        }
    }
}
