import Synchronization

/// A libjxl_threads runner lent to one decoder or encoder at a time, and handed back for reuse.
///
/// Starting a runner starts `defaultWorkerCount()` threads, so a runner per decode costs thread
/// start-up on every small file and lets a burst of decodes start threads faster than the system
/// reaps them (libjxl throws `std::system_error` through its C API when a thread cannot start,
/// which ends the process). Runners are therefore kept: ``borrow()`` takes an idle one or starts
/// one, ``giveBack()`` keeps it for the next caller, up to ``maximumIdle``, and stops the rest.
/// One runner serves one caller at a time, as libjxl requires.
struct JXLThreadPool {
    let threads: JXLThreads
    /// The `JxlThreadParallelRunner` opaque pointer.
    let runner: UnsafeMutableRawPointer

    /// How many idle runners are kept (two workers each on this project's two-core machines).
    static let maximumIdle = 4

    /// Idle runners, as address bit patterns so the list is `Sendable`; each is owned by the list
    /// until ``borrow()`` takes it out under the lock.
    private static let idle = Mutex<[UInt]>([])

    /// How many runners exist, idle or lent (tests read it to show that none leaks).
    static var liveCount: Int { live.load(ordering: .relaxed) }
    private static let live = Atomic<Int>(0)

    private init(threads: JXLThreads, runner: UnsafeMutableRawPointer) {
        self.threads = threads
        self.runner = runner
    }

    /// An idle runner, or a new one; `nil` when libjxl_threads is missing or a runner cannot be made
    /// (the caller then runs libjxl on its own thread).
    static func borrow() -> JXLThreadPool? {
        guard let threads = JXLThreads.shared else { return nil }
        if let address = idle.withLock({ $0.popLast() }), let runner = UnsafeMutableRawPointer(bitPattern: address) {
            return JXLThreadPool(threads: threads, runner: runner)
        }
        guard let runner = threads.create(nil, threads.defaultWorkerCount()) else { return nil }
        live.add(1, ordering: .relaxed)
        return JXLThreadPool(threads: threads, runner: runner)
    }

    /// Returns the runner once the decoder or encoder that used it has been destroyed.
    func giveBack() {
        let address = UInt(bitPattern: runner)
        let kept = Self.idle.withLock { list -> Bool in
            guard list.count < Self.maximumIdle else { return false }
            list.append(address)
            return true
        }
        if !kept {
            threads.destroy(runner)
            Self.live.subtract(1, ordering: .relaxed)
        }
    }
}
