import Foundation
import KingfisherSynchronization
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

        let info = try await KFCommandTests.run(["cache", "info", "--cache-dir", parent.path, "--json"])
        #expect(info.status == 0)
        let object = try Self.jsonObject(Substring(info.stdout))
        #expect(object["entries"] as? Int == 2)
        #expect(object["bytes"] as? Int == 3 * pngSize)
        #expect(object["path"] as? String == cache.diskStorage.directoryURL.path)
        #expect(object["oldestAccess"] is String)

        let list = try await KFCommandTests.run(["cache", "ls", "--cache-dir", parent.path, "--json"])
        #expect(list.status == 0)
        let lines = try list.stdout.split(separator: "\n").map(Self.jsonObject)
        let keys = Set(lines.compactMap { $0["key"] as? String })
        #expect(keys == ["https://example.com/one.png", "https://example.com/two.png@\(try Self.blurIdentifier())"])
        #expect(lines.allSatisfy { $0["expires"] is String && $0["lastAccess"] is String })

        let text = try await KFCommandTests.run(["cache", "ls", "--cache-dir", parent.path])
        #expect(text.stdout.contains("https://example.com/one.png"))
    }

    @Test func pathNamesTheFileOfAKeyAndProcessor() async throws {
        let (parent, cache) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let folder = try await KFCommandTests.run(["cache", "path", "--cache-dir", parent.path])
        #expect(folder.stdout.trimmingCharacters(in: .newlines) == cache.diskStorage.directoryURL.path)

        let processed = try await KFCommandTests.run([
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
        let clean = try await KFCommandTests.run(["cache", "clean", "--size-limit", "1", "--cache-dir", parent.path, "--json"])
        #expect(clean.status == 0)
        #expect(try Self.jsonObject(Substring(clean.stdout))["entries"] as? Int == 0)

        let (again, _) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: again) }
        let clear = try await KFCommandTests.run(["cache", "clear", "--yes", "--cache-dir", again.path, "--json"])
        #expect(try Self.jsonObject(Substring(clear.stdout))["removed"] as? Int == 2)
        let info = try await KFCommandTests.run(["cache", "info", "--cache-dir", again.path, "--json"])
        #expect(try Self.jsonObject(Substring(info.stdout))["entries"] as? Int == 0)
    }

    @Test func badArgumentsAndUnusableFoldersFailWithTheRightStatus() async throws {
        let parent = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let badSize = try await KFCommandTests.run(["cache", "clean", "--size-limit", "lots", "--cache-dir", parent.path])
        #expect(badSize.status == 2 && badSize.stderr.split(separator: "\n").count == 1)
        let file = parent.appendingPathComponent("file")
        try Data("x".utf8).write(to: file)
        let unusable = try await KFCommandTests.run(["cache", "info", "--cache-dir", file.path])
        #expect(unusable.status == 1)
        #expect(unusable.stderr == "kf: \(file.path): not a folder\n")
    }

    /// A mistyped --cache-dir is an error naming it, and no cache subcommand creates a folder.
    @Test(arguments: [
        ["info"], ["ls"], ["path"], ["path", "https://example.com/a.png"], ["clean"], ["clear", "--yes"],
    ])
    func aMissingCacheDirIsReportedAndNothingIsCreated(subcommand: [String]) async throws {
        let parent = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let typo = parent.appendingPathComponent("cahce")
        let run = try await KFCommandTests.run(["cache"] + subcommand + ["--cache-dir", typo.path])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr == "kf: \(typo.path): the folder does not exist\n")
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: typo.path))
    }

    /// A folder that exists but holds no cache yet is an empty cache, left as it was.
    @Test func anEmptyFolderIsAnEmptyCacheAndStaysEmpty() async throws {
        let parent = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let info = try await KFCommandTests.run(["cache", "info", "--cache-dir", parent.path, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let object = try Self.jsonObject(Substring(info.stdout))
        #expect(object["entries"] as? Int == 0)
        #expect((object["path"] as? String)?.hasPrefix(parent.path + "/") == true)
        for arguments in [["ls"], ["path", "https://example.com/a.png"], ["clean"], ["clear", "--yes"]] {
            let run = try await KFCommandTests.run(["cache"] + arguments + ["--cache-dir", parent.path])
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty)
    }

    /// Without a terminal to ask on, clear removes nothing unless --yes says so.
    @Test func clearWithoutATerminalNeedsYes() async throws {
        let (parent, _) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let refused = try await KFCommandTests.run(["cache", "clear", "--cache-dir", parent.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.split(separator: "\n").count == 1 && refused.stderr.contains("--yes"), "\(refused.stderr)")
        #expect(try await Self.entryCount(parent) == 2)

        let cleared = try await KFCommandTests.run(["cache", "clear", "--yes", "--cache-dir", parent.path])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(cleared.stdout.hasPrefix("removed 2 entries"))
        #expect(try await Self.entryCount(parent) == 0)
    }

    /// On a terminal, clear says what it would remove and waits for yes.
    @Test func clearOnATerminalAsksFirst() async throws {
        let (parent, cache) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let declined = try TerminalRun.kf(["cache", "clear", "--cache-dir", parent.path], typing: "n\n")
        #expect(declined.status == 1)
        #expect(declined.stderr.hasPrefix("kf: remove all 2 entries ("), "\(declined.stderr)")
        #expect(declined.stderr.contains("from \(cache.diskStorage.directoryURL.path)? [y/N] "))
        #expect(declined.stderr.hasSuffix("kf: nothing was removed\n"))
        #expect(declined.stdout.isEmpty)
        #expect(try await Self.entryCount(parent) == 2)

        let unanswered = try TerminalRun.kf(["cache", "clear", "--cache-dir", parent.path], typing: "\n")
        #expect(unanswered.status == 1)
        #expect(try await Self.entryCount(parent) == 2)

        let confirmed = try TerminalRun.kf(["cache", "clear", "--cache-dir", parent.path], typing: "yes\n")
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout.hasPrefix("removed 2 entries"))
        #expect(try await Self.entryCount(parent) == 0)

        let (other, _) = try await Self.populatedFolder()
        defer { try? FileManager.default.removeItem(at: other) }
        let skipped = try TerminalRun.kf(["cache", "clear", "--yes", "--cache-dir", other.path], typing: "")
        #expect(skipped.status == 0 && !skipped.stderr.contains("[y/N]"), "\(skipped.stderr)")
        #expect(try await Self.entryCount(other) == 0)
    }

    /// The entries `kf cache info` counts in the cache under `parent`.
    static func entryCount(_ parent: URL) async throws -> Int? {
        let info = try await KFCommandTests.run(["cache", "info", "--cache-dir", parent.path, "--json"])
        return try Self.jsonObject(Substring(info.stdout))["entries"] as? Int
    }
}

/// Runs `kf` with a pseudo-terminal as its standard input, as a person at a shell would.
enum TerminalRun {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `kf arguments`; `typing` is what the person types, queued on the terminal before kf starts.
    static func kf(_ arguments: [String], typing: String) throws -> Result {
        let pty = try PseudoTerminal.functions()
        let master = pty.open(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0 else { throw Failure(description: "posix_openpt: \(errno)") }
        defer { close(master) }
        var name = [CChar](repeating: 0, count: 128)
        guard pty.grant(master) == 0, pty.unlock(master) == 0, pty.name(master, &name, name.count) == 0 else {
            throw Failure(description: "cannot set up the pseudo-terminal: \(errno)")
        }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let terminal = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard terminal >= 0 else { throw Failure(description: "cannot open the pseudo-terminal: \(errno)") }
        defer { close(terminal) }
        if !typing.isEmpty {
            let bytes = Array(typing.utf8)
            guard write(master, bytes, bytes.count) == bytes.count else { throw Failure(description: "write: \(errno)") }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ends: [[Int32]] = []
        for _ in 0..<2 {
            var pair: [Int32] = [0, 0]
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            guard socketpair(AF_UNIX, type, 0, &pair) == 0 else { throw Failure(description: "socketpair: \(errno)") }
            ends.append(pair)
        }
        posix_spawn_file_actions_adddup2(&actions, terminal, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, ends[0][1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, ends[1][1], STDERR_FILENO)
        let executable = try KFCommandTests.kfURL().path
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, environ)
        close(ends[0][1])
        close(ends[1][1])
        let output = FileHandle(fileDescriptor: ends[0][0], closeOnDealloc: true)
        let errors = FileHandle(fileDescriptor: ends[1][0], closeOnDealloc: true)
        guard spawned == 0 else { throw Failure(description: "posix_spawn: \(spawned)") }
        let errorText = Mutex(Data())
        let errorRead = DispatchGroup()
        DispatchQueue.global().async(group: errorRead) {
            let data = errors.readDataToEndOfFile()
            errorText.withLock { $0 = data }
        }
        let outputData = output.readDataToEndOfFile()
        errorRead.wait()
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        return Result(
            status: status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f),
            stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorText.withLock { $0 }, as: UTF8.self))
    }
}

/// The C library's pseudo-terminal functions, which Swift's Glibc module leaves out (they need
/// `_XOPEN_SOURCE`), looked up by name.
enum PseudoTerminal {
    typealias Open = @convention(c) (Int32) -> Int32
    typealias Grant = @convention(c) (Int32) -> Int32
    typealias Name = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

    struct Functions {
        var open: Open
        var grant: Grant
        var unlock: Grant
        var name: Name
    }

    static func functions() throws -> Functions {
        let handle = dlopen(nil, RTLD_NOW)
        func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
            guard let pointer = dlsym(handle, name) else { throw TerminalRun.Failure(description: "no \(name) in the C library") }
            return pointer
        }
        return Functions(
            open: unsafeBitCast(try symbol("posix_openpt"), to: Open.self),
            grant: unsafeBitCast(try symbol("grantpt"), to: Grant.self),
            unlock: unsafeBitCast(try symbol("unlockpt"), to: Grant.self),
            name: unsafeBitCast(try symbol("ptsname_r"), to: Name.self))
    }
}
