// A program without a data race that ThreadSanitizer on Linux reports races in:
// 16 threads add to one dictionary, each change inside Mutex.withLock. Synchronization.Mutex's
// slow paths (a priority-inheritance futex, and their compare-and-swaps) live in the
// uninstrumented libswiftSynchronization.so, so TSan misses a lock passed from one thread to the
// next through them. scripts/sanitize.sh thread runs it twice: with that Mutex, and with the
// pthread-based one of Sources/KingfisherSynchronization (KF_SANITIZER_LOCKS), which shadows it.
import Dispatch
import Synchronization

final class Totals: Sendable {
    let counts = Mutex<[Int: Int]>([:])
}

let totals = Totals()
DispatchQueue.concurrentPerform(iterations: 16) { thread in
    for step in 0..<1000 {
        totals.counts.withLock { counts in
            for offset in 0..<20 { counts[(thread * step + offset) % 1000, default: 0] += 1 }
        }
    }
}
let added = totals.counts.withLock { $0.values.reduce(0, +) }
print(added == 16 * 1000 * 20 ? "tsan-mutex-probe: all \(added) additions counted" : "tsan-mutex-probe: lost additions")
