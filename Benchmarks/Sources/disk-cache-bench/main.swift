import BenchSupport
import Foundation
import Kingfisher

// Times DiskStorage against the floor of plain file I/O and prints one table of medians.
//
//   disk-cache-bench [--count N] [--size BYTES] [--runs R] [--dir PARENT]
//
// store: Backend.store of N values (a fresh folder each round) vs Data.write(to:) of the same
// bytes to the same file names in another folder (which goes first alternates by round). read: Backend.value of every key vs
// Data(contentsOf:) of the same files. miss: Backend.value for keys never stored (ns/op).

func option(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count,
          let parsed = Int(arguments[index + 1]) else { return value }
    return parsed
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let count = option("--count", default: 1000)
let size = option("--size", default: 256 * 1024)
let runs = option("--runs", default: 5)
let parent: URL = {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--dir"), index + 1 < arguments.count {
        return URL(fileURLWithPath: arguments[index + 1])
    }
    return FileManager.default.temporaryDirectory.appendingPathComponent("disk-cache-bench-\(getpid())")
}()
let fileManager = FileManager.default
try? fileManager.removeItem(at: parent)
defer { try? fileManager.removeItem(at: parent) }

var config = DiskStorage.Config(name: "bench", sizeLimit: 0, directory: parent)
config.expiration = .never
let keys = (0..<count).map { "https://example.com/images/\($0).jpg" }
let values = keys.indices.map { index in Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }) }
let plainFolder = parent.appendingPathComponent("plain")

do {
    var storeTimes: [Double] = [], plainWriteTimes: [Double] = []
    var readTimes: [Double] = [], plainReadTimes: [Double] = []
    var missTimes: [Double] = [], missCachedTimes: [Double] = []
    let storage = try DiskStorage.Backend<Data>(config: config)
    let names = keys.map { storage.cacheFileName(forKey: $0) }
    let missKeys = (0..<100_000).map { "https://example.com/missing/\($0).jpg" }
    for round in 0...runs {
        try storage.removeAll()
        try? fileManager.removeItem(at: plainFolder)
        try fileManager.createDirectory(at: plainFolder, withIntermediateDirectories: true)
        // Alternate which goes first so neither always pays for the other's dirty pages.
        var store = 0.0, plainWrite = 0.0
        for first in round % 2 == 0 ? [true, false] : [false, true] {
            if first {
                store = try time { for (key, value) in zip(keys, values) { try storage.store(value: value, forKey: key) } }
            } else {
                plainWrite = try time {
                    for (name, value) in zip(names, values) { try value.write(to: plainFolder.appendingPathComponent(name)) }
                }
            }
        }
        var bytes = 0
        let read = try time {
            for key in keys { bytes += try storage.value(forKey: key)?.count ?? 0 }
        }
        guard bytes == count * size else { throw CocoaError(.fileReadCorruptFile) }
        let plainRead = try time {
            for name in names { bytes += try Data(contentsOf: plainFolder.appendingPathComponent(name)).count }
        }
        var misses = 0
        let miss = try time { for key in missKeys where try storage.value(forKey: key) == nil { misses += 1 } }
        let missCached = time { for key in missKeys where !storage.isCached(forKey: key) { misses += 1 } }
        guard misses == 2 * missKeys.count else { throw CocoaError(.fileReadUnknown) }
        if round == 0 { continue } // warm-up
        storeTimes.append(store); plainWriteTimes.append(plainWrite)
        readTimes.append(read); plainReadTimes.append(plainRead)
        missTimes.append(miss / Double(missKeys.count)); missCachedTimes.append(missCached / Double(missKeys.count))
    }
    let megabytes = Double(count * size) / 1_048_576
    func row(_ name: String, _ ours: [Double], _ floor: [Double]) -> String {
        let (o, f) = (median(ours), median(floor))
        return String(format: "| %@ | %.1f ms (%.0f MB/s, %.0f ops/s) | %.1f ms (%.0f MB/s) | %.2fx |",
                      name, o * 1000, megabytes / o, Double(count) / o, f * 1000, megabytes / f, o / f)
    }
    print("disk-cache-bench: \(count) × \(size / 1024) KB, median of \(runs) rounds, folder \(parent.path)")
    print("| work | DiskStorage | floor (plain Data I/O) | ratio |")
    print("|---|---|---|---|")
    print(row("store", storeTimes, plainWriteTimes))
    print(row("read", readTimes, plainReadTimes))
    print(String(format: "| miss: value(forKey:) of an unseen key | %.0f ns/op | — | — |", median(missTimes) * 1e9))
    print(String(format: "| miss: isCached(forKey:) of an unseen key | %.0f ns/op | — | — |", median(missCachedTimes) * 1e9))
} catch {
    FileHandle.standardError.write(Data("disk-cache-bench: \(error)\n".utf8))
    exit(1)
}
