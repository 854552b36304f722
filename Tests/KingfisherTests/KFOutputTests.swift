import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// `--quiet`, `--verbose`, progress lines, one-line errors and Ctrl-C, each run as a real `kf`
/// process against a local server.
@Suite struct KFOutputTests {
    /// The lines of `text`, without the empty one after the last newline.
    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
    }

    @Test func quietPrintsNothingOnSuccessAndOnlyTheErrorsOnFailure() async throws {
        try await KFFetchCommandTests.withServer { server, cacheDir in
            for index in 0..<3 { server.route("/q\(index).png", .ok(DownloaderKit.png)) }
            server.route("/gone.png", .status(404))
            let urls = (0..<3).map { server.url("/q\($0).png").absoluteString }
            let gone = server.url("/gone.png").absoluteString

            let fetch = try await KFFetchCommandTests.kf(["fetch", "--quiet"] + urls + ["--cache-dir", cacheDir])
            #expect(fetch.status == 0 && fetch.stdout.isEmpty && fetch.stderr.isEmpty, "\(fetch.stderr)")
            let prefetch = try await KFFetchCommandTests.kf(["prefetch", "-q"] + urls + ["--cache-dir", cacheDir])
            #expect(prefetch.status == 0 && prefetch.stdout.isEmpty && prefetch.stderr.isEmpty, "\(prefetch.stderr)")
            // --json is the asked-for result: still printed.
            let json = try await KFFetchCommandTests.kf(["prefetch", "-q", "--json"] + urls + ["--cache-dir", cacheDir])
            let summary = try KFFetchCommandTests.lines(json).last
            #expect(json.stderr.isEmpty && summary?["skipped"] as? Int == 3)

            let one = try await KFFetchCommandTests.kf(["fetch", "-q", gone, "--cache-dir", cacheDir])
            #expect(one.status == 1 && one.stdout.isEmpty)
            #expect(Self.lines(one.stderr).count == 1 && one.stderr.hasPrefix("kf: \(gone): ") && one.stderr.contains("404"))

            let several = try await KFFetchCommandTests.kf(["fetch", "-q", urls[0], gone, "--cache-dir", cacheDir])
            #expect(several.status == 1 && several.stdout.isEmpty)
            #expect(Self.lines(several.stderr) == ["kf: \(gone): the server answered \(gone) with the invalid status 404",
                                                   "kf: 1 of 2 inputs failed"])
            let prefetchFailure = try await KFFetchCommandTests.kf(["prefetch", "-q", urls[0], gone, "--cache-dir", cacheDir])
            #expect(prefetchFailure.status == 1 && prefetchFailure.stdout.isEmpty)
            #expect(Self.lines(prefetchFailure.stderr) == Self.lines(several.stderr))
        }
    }

    @Test func verboseNamesTheCacheFolderAndWhereEachImageCameFrom() async throws {
        try await KFFetchCommandTests.withServer { server, cacheDir in
            server.route("/v1.png", .ok(DownloaderKit.png))
            server.route("/v2.png", .ok(DownloaderKit.png))
            let urls = [server.url("/v1.png").absoluteString, server.url("/v2.png").absoluteString]
            let folder = try ImageCache(name: "default", cacheDirectoryURL: URL(fileURLWithPath: cacheDir)).diskStorage.directoryURL.path

            let first = try await KFFetchCommandTests.kf(["fetch", "--verbose"] + urls + ["--cache-dir", cacheDir])
            #expect(first.status == 0, "\(first.stderr)")
            let firstLines = Self.lines(first.stderr)
            #expect(firstLines.contains("kf: cache folder: \(folder)"))
            for url in urls {
                #expect(firstLines.filter { $0.hasPrefix("kf: \(url): none (network), ") && $0.hasSuffix(" ms") }.count == 1)
            }

            let second = try await KFFetchCommandTests.kf(["fetch", "-v"] + urls + ["--cache-dir", cacheDir])
            for url in urls {
                #expect(Self.lines(second.stderr).filter { $0.hasPrefix("kf: \(url): disk, ") }.count == 1)
            }
            let prefetch = try await KFFetchCommandTests.kf(["prefetch", "-v"] + urls + ["--cache-dir", cacheDir])
            #expect(prefetch.status == 0)
            for url in urls {
                #expect(Self.lines(prefetch.stderr).filter { $0.hasPrefix("kf: \(url): disk, skipped, ") }.count == 1)
            }

            let both = try await KFFetchCommandTests.kf(["fetch", "-q", "-v", urls[0]])
            #expect(both.status == 2 && Self.lines(both.stderr).count == 1)
            #expect(both.stderr.contains("--quiet and --verbose") && both.stderr.contains("kf fetch --help"))
        }
    }

    @Test func tenURLsOffATerminalGiveOnePlainProgressLinePerTenth() async throws {
        try await KFFetchCommandTests.withServer { server, cacheDir in
            for index in 0..<10 { server.route("/t\(index).png", .ok(DownloaderKit.png)) }
            let urls = (0..<10).map { server.url("/t\($0).png").absoluteString }
            let run = try await KFFetchCommandTests.kf(["fetch"] + urls + ["--cache-dir", cacheDir])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(!run.stderr.contains("\r"))
            #expect(Self.lines(run.stderr) == (1...10).map { "fetch: \($0)/10 done, 0 failed" })
            // The result lines are all there, in the order given.
            #expect(Self.lines(run.stdout).map { String($0.prefix(while: { $0 != " " })) } == urls.map { $0 + ":" })
        }
    }

    @Test func errorsAreOneLineEvenWhenNamesHoldLineBreaks() async throws {
        let directory = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let strange = directory.appendingPathComponent("two\nlines\r.png")
        try Data("not an image".utf8).write(to: strange)
        let run = try await KFCommandTests.run(["convert", strange.path, directory.appendingPathComponent("out.png").path])
        #expect(run.status == 1 && Self.lines(run.stderr).count == 1)
        #expect(run.stderr.contains("two lines .png: cannot decode an image"))

        let unknown = try await KFCommandTests.run(["info", strange.path, "--frobnicate"])
        #expect(unknown.status == 2 && Self.lines(unknown.stderr) == ["kf: Unknown option '--frobnicate' (see 'kf info --help')"])
        let nested = try await KFCommandTests.run(["cache", "ls", "--bogus"])
        #expect(nested.status == 2 && Self.lines(nested.stderr) == ["kf: Unknown option '--bogus' (see 'kf cache ls --help')"])
    }

    /// Also checks that `kf` unblocks SIGINT: this test spawns it from a dispatch thread, whose
    /// blocked signal mask the child inherits.
    @Test func ctrlCEndsAFetchWithTheSignal() async throws {
        let gate = TestGate()
        try await KFFetchCommandTests.withServer { server, cacheDir in
            server.route("/held.png", .held(DownloaderKit.png, gate: gate))
            let child = try ChildProcess(
                try KFCommandTests.kfURL().path, ["fetch", server.url("/held.png").absoluteString, "--cache-dir", cacheDir])
            await gate.waitUntilWaiting(count: 1)
            child.signal(SIGINT)
            let termination = await child.exited()
            gate.open()
            #expect(termination == .signalled(SIGINT))
        }
    }
}
