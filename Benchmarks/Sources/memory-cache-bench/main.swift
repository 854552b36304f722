import Dispatch
import BenchSupport
import Foundation
import Kingfisher

// Compares MemoryStorage.Backend with Foundation's NSCache in one run and prints a table of medians.
//
//   memory-cache-bench [--keys N] [--lookups N] [--rounds N] [--profile-hits]
//
// Both caches hold N keys shaped like Kingfisher's ("https://example.com/images/<i>.jpg@processor")
// with a small boxed value, and limits large enough that nothing is evicted. A "hit" round times
// `lookups` reads in a seeded random order of keys that are all cached; an "insert" round times
// storing the N keys into an emptied cache, repeated until `lookups` inserts are timed (the
// clearing is not timed). "2 threads" splits the same work over two threads sharing one cache.
// The two caches alternate round by round so that drift in the machine hits both alike.
//
// MemoryStorage runs with its defaults (expiration 300 s, `.cacheTime` extension on every hit,
// so each hit also reads the clock). NSCache gets its keys as NSStrings built beforehand, its best
// case: a caller holding Swift strings would also pay a bridge per call.
//
// Each figure is given per second of wall time and per second of process CPU time. On a machine
// shared with other work the CPU-time figure is the steadier one; with 2 threads it measures
// work per CPU-second, not throughput.
//
// --profile-hits only runs MemoryStorage hits, single-threaded, for a profiler.

final class Box: CacheCostCalculable {
    let id: Int
    let cacheCost: Int
    init(id: Int, cost: Int) { self.id = id; self.cacheCost = cost }
}

/// The NSCache and its keys, shared by the threads: NSCache locks internally and the keys are
/// immutable NSStrings never changed after they are built.
struct SharedNSCache: @unchecked Sendable {
    let cache: NSCache<NSString, Box>
    let keys: [NSString]
}

func option(_ name: String, default value: Int, in arguments: [String]) -> Int {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard index + 1 < arguments.count, let number = Int(arguments[index + 1]), number > 0 else { fail("\(name) wants a positive number") }
    return number
}

/// Seconds of wall time and of this process's CPU time.
struct Timing {
    var wall = 0.0
    var cpu = 0.0

    static func += (lhs: inout Timing, rhs: Timing) {
        lhs.wall += rhs.wall
        lhs.cpu += rhs.cpu
    }
}

func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The time `body(range)` takes over `0..<operations`, split in contiguous ranges over `threads` threads.
func timed(operations: Int, threads: Int, _ body: @escaping @Sendable (Range<Int>) -> Void) -> Timing {
    let cpu = processCPUSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    if threads == 1 {
        body(0..<operations)
    } else {
        // Threads of our own: DispatchQueue.concurrentPerform sometimes runs every iteration on
        // the calling thread, which would time one thread while claiming two.
        let done = DispatchGroup()
        let chunk = (operations + threads - 1) / threads
        for thread in 0..<threads {
            done.enter()
            let range = min(operations, thread * chunk)..<min(operations, (thread + 1) * chunk)
            Thread {
                body(range)
                done.leave()
            }.start()
        }
        done.wait()
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Timing(wall: wall, cpu: processCPUSeconds() - cpu)
}

/// Medians of operations per second, by wall time and by CPU time.
struct Rates {
    var wall: [Double] = []
    var cpu: [Double] = []

    mutating func add(_ timing: Timing, operations: Int) {
        wall.append(Double(operations) / timing.wall)
        cpu.append(Double(operations) / max(timing.cpu, 1e-9))
    }
}

struct Row {
    var operation: String
    var threads: Int
    var ours: Rates
    var nsCache: Rates
}

/// A cache under test: how to empty it, fill a range of keys, and read a range of the lookup order.
struct Contender {
    var clear: () -> Void
    var insert: @Sendable (Range<Int>) -> Void
    var hit: @Sendable (Range<Int>) -> Void
}

func run(keyCount: Int, lookups: Int, rounds: Int) -> [Row] {
    let keys = (0..<keyCount).map { "https://example.com/images/\($0).jpg@processor" }
    let boxes = (0..<keyCount).map { Box(id: $0, cost: 1_024) }
    var generator = SplitMix64(seed: 42)
    let order = (0..<lookups).map { _ in Int(generator.next() % UInt64(keyCount)) }

    let storage = MemoryStorage.Backend<Box>(config: MemoryStorage.Config(totalCostLimit: .max))
    let ours = Contender(
        clear: { storage.removeAll() },
        insert: { range in for index in range { storage.store(value: boxes[index], forKey: keys[index]) } },
        hit: { range in
            var found = 0
            for index in range where storage.value(forKey: keys[order[index]]) != nil { found += 1 }
            if found != range.count { fail("MemoryStorage missed \(range.count - found) keys") }
        }
    )
    let shared = SharedNSCache(cache: NSCache<NSString, Box>(), keys: keys.map { NSString(string: $0) })
    let nsCache = Contender(
        clear: { shared.cache.removeAllObjects() },
        insert: { range in for index in range { shared.cache.setObject(boxes[index], forKey: shared.keys[index], cost: 1_024) } },
        hit: { range in
            var found = 0
            for index in range where shared.cache.object(forKey: shared.keys[order[index]]) != nil { found += 1 }
            if found != range.count { fail("NSCache missed \(range.count - found) keys") }
        }
    )

    let fills = max(1, lookups / keyCount)
    func insertRound(_ contender: Contender, threads: Int, into rates: inout Rates) {
        var total = Timing()
        for _ in 0..<fills {
            contender.clear()
            total += timed(operations: keyCount, threads: threads, contender.insert)
        }
        rates.add(total, operations: fills * keyCount)
    }
    func hitRound(_ contender: Contender, threads: Int, into rates: inout Rates) {
        // The insert round before leaves every key cached.
        rates.add(timed(operations: lookups, threads: threads, contender.hit), operations: lookups)
    }

    var rows: [Row] = []
    for threads in [1, 2] {
        var inserts = (Rates(), Rates()), hits = (Rates(), Rates()), warmUp = Rates()
        insertRound(ours, threads: threads, into: &warmUp)
        hitRound(ours, threads: threads, into: &warmUp)
        insertRound(nsCache, threads: threads, into: &warmUp)
        hitRound(nsCache, threads: threads, into: &warmUp)
        for _ in 0..<rounds {
            insertRound(ours, threads: threads, into: &inserts.0)
            hitRound(ours, threads: threads, into: &hits.0)
            insertRound(nsCache, threads: threads, into: &inserts.1)
            hitRound(nsCache, threads: threads, into: &hits.1)
        }
        rows.append(Row(operation: "hit", threads: threads, ours: hits.0, nsCache: hits.1))
        rows.append(Row(operation: "insert", threads: threads, ours: inserts.0, nsCache: inserts.1))
    }
    return rows
}

/// A small seeded generator so every run reads the keys in the same order.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func column(_ text: String, _ width: Int) -> String {
    text.padding(toLength: width, withPad: " ", startingAt: 0)
}

func millions(_ rate: Double) -> String {
    String(format: "%.2f M/s", rate / 1e6)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let keyCount = option("--keys", default: 10_000, in: arguments)
let lookups = option("--lookups", default: 1_000_000, in: arguments)
let rounds = option("--rounds", default: 7, in: arguments)

if arguments.contains("--profile-hits") {
    let keys = (0..<keyCount).map { "https://example.com/images/\($0).jpg@processor" }
    let storage = MemoryStorage.Backend<Box>(config: MemoryStorage.Config(totalCostLimit: .max))
    for (index, key) in keys.enumerated() { storage.store(value: Box(id: index, cost: 1_024), forKey: key) }
    var generator = SplitMix64(seed: 42)
    let order = (0..<lookups).map { _ in Int(generator.next() % UInt64(keyCount)) }
    var rates = Rates()
    for _ in 0..<rounds {
        rates.add(timed(operations: lookups, threads: 1) { range in
            for index in range where storage.value(forKey: keys[order[index]]) == nil { fail("missed") }
        }, operations: lookups)
    }
    print("MemoryStorage hits: \(millions(median(rates.wall))) wall, \(millions(median(rates.cpu))) per CPU second")
    exit(0)
}

let rows = run(keyCount: keyCount, lookups: lookups, rounds: rounds)
print("memory-cache-bench: \(keyCount) keys, \(lookups) operations per round, \(rounds) rounds, medians")
print(column("", 19) + column("per second of wall time", 40) + "per second of CPU time")
print(column("operation threads", 19) + String(repeating: column("MemoryStorage", 15) + column("NSCache", 13) + column("ratio", 12), count: 2))
for row in rows {
    var line = column(row.operation, 10) + column("\(row.threads)", 9)
    for (ours, theirs) in [(median(row.ours.wall), median(row.nsCache.wall)), (median(row.ours.cpu), median(row.nsCache.cpu))] {
        line += column(millions(ours), 15) + column(millions(theirs), 13) + column(String(format: "%.1fx", ours / theirs), 12)
    }
    print(line)
}
for row in rows {
    let wall = (median(row.ours.wall), median(row.nsCache.wall)), cpu = (median(row.ours.cpu), median(row.nsCache.cpu))
    print(#"{"op":"\#(row.operation)","threads":\#(row.threads),"memory_storage_per_s":\#(Int(wall.0)),"nscache_per_s":\#(Int(wall.1)),"ratio":\#(wall.0 / wall.1),"memory_storage_per_cpu_s":\#(Int(cpu.0)),"nscache_per_cpu_s":\#(Int(cpu.1)),"cpu_ratio":\#(cpu.0 / cpu.1)}"#)
}
