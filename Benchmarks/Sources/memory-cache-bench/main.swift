import Dispatch
import Foundation
import Kingfisher

// Compares MemoryStorage.Backend with Foundation's NSCache in one run and prints a table of medians.
//
//   memory-cache-bench [--keys N] [--lookups N] [--rounds N] [--profile-hits]
//
// --profile-hits only runs MemoryStorage hits, single-threaded, for a profiler.
//
// Both caches hold N keys shaped like Kingfisher's ("https://example.com/images/<i>.jpg@processor")
// with a small boxed value, and limits large enough that nothing is evicted. "hit" times
// `lookups` reads in a shuffled order of keys that are all cached; "insert" times storing the N
// keys into an emptied cache. "2 threads" splits the same work over two threads sharing one cache.
// MemoryStorage runs with its defaults (expiration 300 s, `.cacheTime` extension on every hit,
// so each hit also reads the clock). NSCache gets its keys as NSString built beforehand, its best
// case: a caller holding Swift strings would also pay a bridge per call.

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

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("memory-cache-bench: \(message)\n".utf8))
    exit(2)
}

func option(_ name: String, default value: Int, in arguments: [String]) -> Int {
    guard let index = arguments.firstIndex(of: name) else { return value }
    guard index + 1 < arguments.count, let number = Int(arguments[index + 1]), number > 0 else { fail("\(name) wants a positive number") }
    return number
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Operations per second of `operations` done by `body(thread, range)` over `threads` threads.
func rate(operations: Int, threads: Int, _ body: @Sendable (Int, Range<Int>) -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    if threads == 1 {
        body(0, 0..<operations)
    } else {
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let chunk = (operations + threads - 1) / threads
            body(thread, min(operations, thread * chunk)..<min(operations, (thread + 1) * chunk))
        }
    }
    return Double(operations) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

struct Row {
    var operation: String
    var threads: Int
    var ours: Double
    var nsCache: Double
}

func run(keyCount: Int, lookups: Int, rounds: Int) -> [Row] {
    let keys = (0..<keyCount).map { "https://example.com/images/\($0).jpg@processor" }
    let boxes = (0..<keyCount).map { Box(id: $0, cost: 1_024) }
    var generator = SplitMix64(seed: 42)
    let order = (0..<lookups).map { _ in Int(generator.next() % UInt64(keyCount)) }

    let storage = MemoryStorage.Backend<Box>(config: MemoryStorage.Config(totalCostLimit: .max))
    let shared = SharedNSCache(cache: NSCache<NSString, Box>(), keys: keys.map { NSString(string: $0) })

    func fillOurs(threads: Int) -> Double {
        storage.removeAll()
        return rate(operations: keyCount, threads: threads) { _, range in
            for index in range { storage.store(value: boxes[index], forKey: keys[index]) }
        }
    }
    func fillNSCache(threads: Int) -> Double {
        shared.cache.removeAllObjects()
        return rate(operations: keyCount, threads: threads) { _, range in
            for index in range { shared.cache.setObject(boxes[index], forKey: shared.keys[index], cost: boxes[index].cacheCost) }
        }
    }
    func hitOurs(threads: Int) -> Double {
        rate(operations: lookups, threads: threads) { _, range in
            var found = 0
            for index in range where storage.value(forKey: keys[order[index]]) != nil { found += 1 }
            if found != range.count { fail("MemoryStorage missed \(range.count - found) keys") }
        }
    }
    func hitNSCache(threads: Int) -> Double {
        rate(operations: lookups, threads: threads) { _, range in
            var found = 0
            for index in range where shared.cache.object(forKey: shared.keys[order[index]]) != nil { found += 1 }
            if found != range.count { fail("NSCache missed \(range.count - found) keys") }
        }
    }

    var rows: [Row] = []
    for threads in [1, 2] {
        var inserts: ([Double], [Double]) = ([], [])
        var hits: ([Double], [Double]) = ([], [])
        _ = (fillOurs(threads: threads), fillNSCache(threads: threads), hitOurs(threads: threads), hitNSCache(threads: threads))  // warm-up
        for _ in 0..<rounds {
            // Alternate the two caches round by round so that drift in the machine hits both alike.
            inserts.0.append(fillOurs(threads: threads))
            inserts.1.append(fillNSCache(threads: threads))
            hits.0.append(hitOurs(threads: threads))
            hits.1.append(hitNSCache(threads: threads))
        }
        rows.append(Row(operation: "hit", threads: threads, ours: median(hits.0), nsCache: median(hits.1)))
        rows.append(Row(operation: "insert", threads: threads, ours: median(inserts.0), nsCache: median(inserts.1)))
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

func formatted(_ rate: Double) -> String {
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
    var rates: [Double] = [], cpuRates: [Double] = []
    for _ in 0..<rounds {
        var cpu = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu)
        let cpuStart = Double(cpu.tv_sec) + Double(cpu.tv_nsec) / 1e9
        rates.append(rate(operations: lookups, threads: 1) { _, range in
            for index in range where storage.value(forKey: keys[order[index]]) == nil { fail("missed") }
        })
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu)
        cpuRates.append(Double(lookups) / (Double(cpu.tv_sec) + Double(cpu.tv_nsec) / 1e9 - cpuStart))
    }
    print("MemoryStorage hits: \(formatted(median(rates))) wall, \(formatted(median(cpuRates))) of thread CPU time")
    exit(0)
}
let rows = run(keyCount: keyCount, lookups: lookups, rounds: rounds)

print("memory-cache-bench: \(keyCount) keys, \(lookups) lookups per hit round, \(rounds) rounds, medians")
print("operation  threads  MemoryStorage    NSCache          ratio")
for row in rows {
    let columns = [row.operation.padding(toLength: 10, withPad: " ", startingAt: 0),
                   "\(row.threads)".padding(toLength: 8, withPad: " ", startingAt: 0),
                   formatted(row.ours).padding(toLength: 16, withPad: " ", startingAt: 0),
                   formatted(row.nsCache).padding(toLength: 16, withPad: " ", startingAt: 0),
                   String(format: "%.1fx", row.ours / row.nsCache)]
    print(columns.joined(separator: " "))
}
for row in rows {
    print(#"{"op":"\#(row.operation)","threads":\#(row.threads),"memory_storage_per_s":\#(Int(row.ours)),"nscache_per_s":\#(Int(row.nsCache)),"ratio":\#(row.ours / row.nsCache)}"#)
}
