// cache-stress: a child process for DiskStorage's multi-process tests.
//
//   cache-stress write <parent> <name> <prefix>
//       stores <prefix>-0, <prefix>-1, ... forever, printing "stored <i>" after each store.
//   cache-stress pair <parent> <name> <me> <other> <count> <done-dir>
//       stores <me>-0 ..< <me>-<count> while reading its own and <other>'s keys, then creates
//       <done-dir>/<me>, waits for <done-dir>/<other> and checks every key of both. Exit 0 when
//       everything read back right.
//   cache-stress open <parent> <name> <key>
//       opens the storage and stores <key> once, printing "stored" or "error: ..." (exit 0 both
//       ways): the disk-fault tests run it on a full disk, where a crash would kill the test runner.
//   cache-stress clear <parent> <name> <count>
//       stores <count> entries in an ImageCache's disk level, then runs `await cache.clearDiskCache()`
//       in an async function called from the top-level code
//       here, in top-level code, and prints "left <n>": the entries still on disk when the awaited
//       call returned. Top-level code is where the compiler once picked the synchronous overload.
import Foundation
import Kingfisher
import KingfisherTestSupport


func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("cache-stress: \(message)\n".utf8))
    exit(1)
}

/// Reads `key`; exits when it reads back wrong, or is missing and `required`.
func check(_ storage: DiskStorage.Backend<Data>, _ key: String, required: Bool) {
    let value: Data?
    do { value = try storage.value(forKey: key) } catch { fail("reading \(key): \(error)") }
    if let value {
        if value != payload(forKey: key, maxSize: 32_000) { fail("\(key) read back wrong (\(value.count) bytes)") }
    } else if required {
        fail("\(key) is missing")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: cache-stress write|pair|open <parent> <name> ...") }
var config = DiskStorage.Config(name: arguments[3], sizeLimit: 0, directory: URL(fileURLWithPath: arguments[2]))
config.expiration = .never

switch arguments[1] {
case "write" where arguments.count == 5:
    let storage: DiskStorage.Backend<Data>
    do { storage = try DiskStorage.Backend<Data>(config: config) } catch { fail("\(error)") }
    var index = 0
    while true {
        let key = "\(arguments[4])-\(index)"
        do { try storage.store(value: payload(forKey: key, maxSize: 300_000), forKey: key) } catch { fail("\(error)") }
        FileHandle.standardOutput.write(Data("stored \(index)\n".utf8))
        index += 1
    }

case "pair" where arguments.count == 8:
    let me = arguments[4], other = arguments[5]
    guard let count = Int(arguments[6]) else { fail("bad count") }
    let done = URL(fileURLWithPath: arguments[7])
    let storage: DiskStorage.Backend<Data>
    do { storage = try DiskStorage.Backend<Data>(config: config) } catch { fail("\(error)") }
    var generator = SystemRandomNumberGenerator()
    for index in 0..<count {
        let key = "\(me)-\(index)"
        do { try storage.store(value: payload(forKey: key, maxSize: 32_000), forKey: key) } catch { fail("\(error)") }
        check(storage, "\(me)-\(Int.random(in: 0...index, using: &generator))", required: true)
        check(storage, "\(other)-\(Int.random(in: 0..<count, using: &generator))", required: false)
    }
    guard FileManager.default.createFile(atPath: done.appendingPathComponent(me).path, contents: Data()) else {
        fail("cannot create the done marker")
    }
    // Watchdog only: the other process normally finishes within a second or two.
    let deadline = Date().addingTimeInterval(120)
    while !FileManager.default.fileExists(atPath: done.appendingPathComponent(other).path) {
        if Date() > deadline { fail("\(other) never finished") }
        usleep(5_000)
    }
    for index in 0..<count {
        check(storage, "\(me)-\(index)", required: true)
        check(storage, "\(other)-\(index)", required: true)
    }
    print("ok")

case "open" where arguments.count == 5:
    do {
        let storage = try DiskStorage.Backend<Data>(config: config)
        try storage.store(value: payload(forKey: arguments[4], maxSize: 32_000), forKey: arguments[4])
        print("stored")
    } catch {
        print("error: \(error)")
    }

case "clear" where arguments.count == 5:
    guard let count = Int(arguments[4]) else { fail("bad count") }
    let cache: ImageCache
    do { cache = try ImageCache(name: arguments[3], cacheDirectoryURL: URL(fileURLWithPath: arguments[2])) } catch { fail("\(error)") }
    for index in 0..<count {
        let key = "entry-\(index)"
        do { try cache.diskStorage.store(value: payload(forKey: key, maxSize: 4_000), forKey: key) } catch { fail("\(error)") }
    }
    await clearEverything(cache)
    let left = (0..<count).filter { cache.diskStorage.isCached(forKey: "entry-\($0)") }.count
    print("left \(left)")

default:
    fail("usage: cache-stress write|pair|open|clear <parent> <name> ...")
}

/// The awaited clear, from an async function: where Swift picks the async form.
func clearEverything(_ cache: ImageCache) async {
    await cache.clearDiskCache()
}
