import Foundation
import Testing
@testable import Kingfisher

@Suite struct KFCacheCommandTests {
    /// The identifier `kf` gives `blur(2)`.
    static func blurIdentifier() throws -> String {
        try ProcessorSpec(parsing: "blur(2)").processor().identifier
    }

    /// A cache folder holding two entries written through the library, as `kf` would find it.
    static func populatedFolder() async throws -> (parent: URL, cache: ImageCache) {
        let parent = try KFCommandTests.temporaryDirectory()
        let cache = try ImageCache(name: "default", cacheDirectoryURL: parent)
        let png = try #require(TestImages.gradient(width: 20, height: 10).kf.pngRepresentation())
        try await cache.storeToDisk(png, forKey: "https://example.com/one.png")
        try await cache.storeToDisk(png + png, forKey: "https://example.com/two.png", processorIdentifier: try blurIdentifier())
        return (parent, cache)
    }

    static func jsonObject(_ line: Substring) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func infoAndListDescribeTheEntries() async throws {
        let (parent, cache) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let pngSize = try #require(TestImages.gradient(width: 20, height: 10).kf.pngRepresentation()).count

        let info = try KFCommandTests.run(["cache", "info", "--cache-dir", parent.path, "--json"])
        #expect(info.status == 0)
        let object = try Self.jsonObject(Substring(info.stdout))
        #expect(object["entries"] as? Int == 2)
        #expect(object["bytes"] as? Int == 3 * pngSize)
        #expect(object["path"] as? String == cache.diskStorage.directoryURL.path)
        #expect(object["oldestAccess"] is String)

        let list = try KFCommandTests.run(["cache", "ls", "--cache-dir", parent.path, "--json"])
        #expect(list.status == 0)
        let lines = try list.stdout.split(separator: "\n").map(Self.jsonObject)
        let keys = Set(lines.compactMap { $0["key"] as? String })
        #expect(keys == ["https://example.com/one.png", "https://example.com/two.png@\(try Self.blurIdentifier())"])
        #expect(lines.allSatisfy { $0["expires"] is String && $0["lastAccess"] is String })

        let text = try KFCommandTests.run(["cache", "ls", "--cache-dir", parent.path])
        #expect(text.stdout.contains("https://example.com/one.png"))
    }

    @Test func pathNamesTheFileOfAKeyAndProcessor() async throws {
        let (parent, cache) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = try KFCommandTests.run(["cache", "path", "--cache-dir", parent.path])
        #expect(folder.stdout.trimmingCharacters(in: .newlines) == cache.diskStorage.directoryURL.path)

        let processed = try KFCommandTests.run([
            "cache", "path", "https://example.com/two.png", "--processor", "blur(2)", "--cache-dir", parent.path, "--json",
        ])
        #expect(processed.status == 0)
        let object = try Self.jsonObject(Substring(processed.stdout))
        #expect(object["path"] as? String == cache.cachePath(forKey: "https://example.com/two.png", processorIdentifier: try Self.blurIdentifier()))
        #expect(object["cached"] as? Bool == true)
    }

    @Test func cleanTrimsToALimitAndClearEmptiesTheCache() async throws {
        let (parent, _) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let clean = try KFCommandTests.run(["cache", "clean", "--size-limit", "1", "--cache-dir", parent.path, "--json"])
        #expect(clean.status == 0)
        #expect(try Self.jsonObject(Substring(clean.stdout))["entries"] as? Int == 0)

        let (again, _) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: again) }
        let clear = try KFCommandTests.run(["cache", "clear", "--cache-dir", again.path, "--json"])
        #expect(try Self.jsonObject(Substring(clear.stdout))["removed"] as? Int == 2)
        let info = try KFCommandTests.run(["cache", "info", "--cache-dir", again.path, "--json"])
        #expect(try Self.jsonObject(Substring(info.stdout))["entries"] as? Int == 0)
    }

    @Test func badArgumentsAndUnusableFoldersFailWithTheRightStatus() throws {
        let parent = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let badSize = try KFCommandTests.run(["cache", "clean", "--size-limit", "lots", "--cache-dir", parent.path])
        #expect(badSize.status == 2 && badSize.stderr.split(separator: "\n").count == 1)
        let file = parent.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let unusable = try KFCommandTests.run(["cache", "info", "--cache-dir", file.path])
        #expect(unusable.status == 1)
        #expect(unusable.stderr.contains("cache folder") && unusable.stderr.split(separator: "\n").count == 1)
        #expect(unusable.stderr.hasPrefix("kf: \(file.path): cannot create the cache folder ") && unusable.stderr.hasSuffix(": Not a directory\n"))
    }
}
