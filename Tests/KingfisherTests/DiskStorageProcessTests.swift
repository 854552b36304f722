import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher
import KingfisherTestSupport

/// Several processes on one cache folder, through the `cache-stress` executable.
@Suite struct DiskStorageProcessTests {
    /// The `cache-stress` built beside this test bundle.
    static func stressURL() throws -> URL {
        var directory = Bundle.module.bundleURL.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("cache-stress")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "cache-stress next to \(Bundle.module.bundleURL.path)"])
    }

    static func storage(parent: URL) throws -> DiskStorage.Backend<Data> {
        var config = DiskStorage.Config(name: "shared", sizeLimit: 0, directory: parent)
        config.expiration = .never
        return try DiskStorage.Backend<Data>(config: config)
    }

    @Test func aWriterKilledMidStreamLeavesNothingThatReadsBackWrong() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let child = try ChildProcess(
            try Self.stressURL().path, ["write", fixture.parent.path, "shared", "w"], standardOutput: .pipe, standardError: .inherit)
        let output = try #require(child.standardOutput)
        // Wait for real progress (lines the child prints after each store), then kill it in
        // the middle of whatever it is writing.
        let target = 40 + Int.random(in: 0..<20)
        var printed = ""
        var stored = -1
        while stored < target {
            let chunk = output.availableData
            if chunk.isEmpty { break } // the child died on its own
            printed += String(decoding: chunk, as: UTF8.self)
            stored = printed.split(separator: "\n").last.flatMap { Int($0.dropFirst("stored ".count)) } ?? stored
        }
        child.signal(SIGKILL)
        #expect(child.wait() == .signalled(SIGKILL))
        #expect(stored >= target)

        let storage = try Self.storage(parent: fixture.parent)
        func verifyAll() throws {
            for index in 0...(stored + 2) {
                let key = "w-\(index)"
                if let value = try storage.value(forKey: key) {
                    #expect(value == payload(forKey: key, maxSize: 300_000), "\(key)")
                } else {
                    #expect(index > stored, "\(key) was stored but is missing")
                }
            }
            for entry in try storage.entries() {
                #expect(try Data(contentsOf: entry.fileURL).count == entry.size)
            }
        }
        try verifyAll()
        _ = try storage.removeExpiredValues() // adopts a renamed-but-unrecorded file, drops the dead writer's temp file
        try verifyAll()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: storage.directoryURL.path)
            .filter { $0.hasPrefix(".kf-tmp-") }
        #expect(leftovers.isEmpty)
        // The journal still takes appends after the torn tail.
        try storage.store(value: Data([1]), forKey: "after")
        #expect(try Self.storage(parent: fixture.parent).value(forKey: "after") == Data([1]))
    }

    @Test func twoProcessesWritingAndReadingLoseNothing() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let done = fixture.parent.appendingPathComponent("done")
        try FileManager.default.createDirectory(at: done, withIntermediateDirectories: true)
        let count = 300
        let children = try [("a", "b"), ("b", "a")].map { me, other in
            try ChildProcess(
                try Self.stressURL().path, ["pair", fixture.parent.path, "shared", me, other, "\(count)", done.path],
                standardError: .pipe)
        }
        for child in children {
            let message = String(decoding: child.standardError?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            #expect(child.wait() == .exited(0), "\(message)")
        }
        let storage = try Self.storage(parent: fixture.parent)
        var expectedSize = 0
        for me in ["a", "b"] {
            for index in 0..<count {
                let key = "\(me)-\(index)"
                let expected = payload(forKey: key, maxSize: 32_000)
                expectedSize += expected.count
                #expect(try storage.value(forKey: key) == expected, "\(key)")
            }
        }
        #expect(try storage.entries().count == 2 * count)
        #expect(try storage.totalSize() == UInt(expectedSize))
    }
}
