#if KF_SANITIZER_LOCKS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Synchronization.Mutex`'s API over a `pthread_mutex_t`, compiled only with
/// `-DKF_SANITIZER_LOCKS` (`scripts/sanitize.sh thread` sets it).
///
/// ThreadSanitizer learns that one thread's critical section happens before the next from the
/// lock calls it intercepts. `Synchronization.Mutex` on Linux hands the lock over through futex
/// calls and compare-and-swaps inside the uninstrumented libswiftSynchronization.so, which TSan
/// cannot see, so it reports races between critical sections that never overlap
/// (`scripts/tsan-mutex-probe.swift` shows them on a race-free program). Declared in this module,
/// this type shadows the re-exported one for every file that imports KingfisherSynchronization;
/// TSan intercepts `pthread_mutex_lock`, so only real races are left to report.
public struct Mutex<Value: ~Copyable>: ~Copyable {
    private let storage: SanitizerMutexStorage<Value>

    /// A lock around `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        storage = SanitizerMutexStorage(initialValue)
    }

    /// Runs `body` with the value while holding the lock; not reentrant.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(storage.mutex)
        defer { pthread_mutex_unlock(storage.mutex) }
        return try body(&storage.value)
    }

    /// Runs `body` with the value if the lock is free at once; `nil` when another thread holds it.
    public borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(storage.mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(storage.mutex) }
        return try body(&storage.value)
    }
}

// `storage.value` is only reached inside withLock and withLockIfAvailable, under storage.mutex.
extension Mutex: @unchecked Sendable where Value: ~Copyable {}

/// The heap cell behind a sanitizer `Mutex`: the pthread mutex needs an address that never moves.
final class SanitizerMutexStorage<Value: ~Copyable> {
    let mutex: UnsafeMutablePointer<pthread_mutex_t>
    var value: Value

    init(_ value: consuming Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
}
#endif
