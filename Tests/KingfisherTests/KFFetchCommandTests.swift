import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// `kf fetch`, `kf prefetch` and `kf info URL`, run as separate processes against a local server.
@Suite struct KFFetchCommandTests {
    /// Runs `kf` off the cooperative pool; a process still running after `seconds` is
    /// terminated (a safety net: no test relies on it).
    static func kf(_ arguments: [String], seconds: Double = 30) async throws -> KFCommandTests.Run {
        KFCommandTests.Run(try await ChildProcess.run(try KFCommandTests.kfURL().path, arguments, timeLimit: seconds))
    }

    static func lines(_ run: KFCommandTests.Run) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// Runs `body` with a server and a fresh cache parent folder, removed afterwards.
    static func withServer(_ body: @escaping @Sendable (TestHTTPServer, String) async throws -> Void) async throws {
        let server = try await TestHTTPServer.start()
        let folder = try KFCommandTests.temporaryDirectory()
        do {
            try await withWatchdog(.seconds(60)) { try await body(server, folder.path) }
        } catch {
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        try await server.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }

    @Test func fetchPrintsOneLinePerInputFetchesDuplicatesOnceAndCaches() async throws {
        try await Self.withServer { server, cacheDir in
            server.route("/a.png", .ok(DownloaderKit.png))
            server.route("/b.png", .ok(DownloaderKit.png))
            let a = server.url("/a.png").absoluteString, b = server.url("/b.png").absoluteString
            let first = try await Self.kf(["fetch", a, b, a, "--json", "--cache-dir", cacheDir])
            #expect(first.status == 0, "\(first.stderr)")
            let lines = try Self.lines(first)
            #expect(lines.count == 3)
            #expect(lines.map { $0["url"] as? String } == [a, b, a])
            #expect(lines.allSatisfy { $0["cacheType"] as? String == "none" && $0["format"] as? String == "PNG" })
            #expect(lines.allSatisfy { $0["width"] as? Int == 16 && $0["height"] as? Int == 12 && $0["error"] == nil })
            #expect(server.requestCount(for: "/a.png") == 1)

            let second = try await Self.kf(["fetch", a, "--json", "--cache-dir", cacheDir])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try Self.lines(second).first?["cacheType"] as? String == "disk")
            #expect(server.requestCount(for: "/a.png") == 1)

            let info = try await Self.kf(["info", a, "--json", "--cache-dir", cacheDir])
            #expect(info.status == 0, "\(info.stderr)")
            let report = try #require(try Self.lines(info).first)
            #expect(report["cache"] as? String == "disk" && report["format"] as? String == "PNG")
            #expect(server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test func infoWithAProcessorFindsTheProcessedEntryAndReadsItsBytes() async throws {
        try await Self.withServer { server, cacheDir in
            server.route("/c.png", .ok(DownloaderKit.png))
            let c = server.url("/c.png").absoluteString
            let fetched = try await Self.kf(["fetch", c, "--processor", "downsample(8x8)", "--cache-dir", cacheDir])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(server.requestCount(for: "/c.png") == 1)

            // The processed entry is on disk: its bytes are described, with no request.
            let processed = try await Self.kf(["info", c, "--processor", "downsample(8x8)", "--json", "--cache-dir", cacheDir])
            #expect(processed.status == 0, "\(processed.stderr)")
            let report = try #require(try Self.lines(processed).first)
            #expect(report["cache"] as? String == "disk")
            #expect(report["width"] as? Int == 8 && report["height"] as? Int == 6)
            #expect(server.requestCount(for: "/c.png") == 1)

            // Without the processor the unprocessed entry is looked up: absent, so the original is downloaded.
            let plain = try await Self.kf(["info", c, "--json", "--cache-dir", cacheDir])
            #expect(plain.status == 0, "\(plain.stderr)")
            let original = try #require(try Self.lines(plain).first)
            #expect(original["cache"] as? String == "none" && original["width"] as? Int == 16)
            #expect(server.requestCount(for: "/c.png") == 2)

            let bad = try await Self.kf(["info", c, "--processor", "nonsense(", "--cache-dir", cacheDir])
            #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
        }
    }

    @Test func onlyFromCacheMissFailsWithoutARequestAndA404NamesTheStatus() async throws {
        try await Self.withServer { server, cacheDir in
            server.route("/cold.png", .ok(DownloaderKit.png))
            server.route("/gone.png", .status(404))
            let cold = server.url("/cold.png").absoluteString, gone = server.url("/gone.png").absoluteString
            let miss = try await Self.kf(["fetch", cold, "--only-from-cache", "--json", "--cache-dir", cacheDir])
            #expect(miss.status == 1)
            let missLine = try #require(try Self.lines(miss).first)
            #expect((missLine["error"] as? String)?.contains(cold) == true)
            #expect(miss.stderr.split(separator: "\n").count == 1 && miss.stderr.hasPrefix("kf: \(cold): the image for key"))
            #expect(server.requestCount(for: "/cold.png") == 0)

            let notFound = try await Self.kf(["fetch", cold, gone, "--json", "--cache-dir", cacheDir])
            #expect(notFound.status == 1)
            let lines = try Self.lines(notFound)
            #expect(lines.count == 2 && lines[0]["error"] == nil && lines[0]["cacheType"] as? String == "none")
            let error = try #require(lines[1]["error"] as? String)
            #expect(error.contains(gone) && error.contains("404"))
            // Off a terminal: a progress line per tenth, one line per failed input, the count.
            #expect(notFound.stderr.split(separator: "\n") == [
                "fetch: 1/2 done, 0 failed", "fetch: 2/2 done, 1 failed", "kf: \(error)", "kf: 1 of 2 inputs failed",
            ] || notFound.stderr.split(separator: "\n") == [
                "fetch: 1/2 done, 1 failed", "fetch: 2/2 done, 1 failed", "kf: \(error)", "kf: 1 of 2 inputs failed",
            ])
            for arguments in [["fetch", "--json"], ["fetch", cold, gone, "-o", "\(cacheDir)/one-file.png"]] {
                let usage = try await Self.kf(arguments)
                #expect(usage.status == 2 && usage.stderr.split(separator: "\n").count == 1)
            }
        }
    }

    @Test func outputFolderGetsDecodableUniquelyNamedFiles() async throws {
        try await Self.withServer { server, cacheDir in
            let jpeg = try TestImages.gradient(width: 64, height: 48).encoded(as: .JPEG)
            server.route("/x/photo.jpg", .ok(jpeg))
            server.route("/y/photo.jpg", .ok(jpeg))
            let output = cacheDir + "/out/"
            let run = try await Self.kf([
                "fetch", server.url("/x/photo.jpg").absoluteString, server.url("/y/photo.jpg").absoluteString,
                "--processor", "downsample(16x16)", "-o", output, "--json", "--cache-dir", cacheDir,
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let paths = try Self.lines(run).compactMap { $0["output"] as? String }
            #expect(Set(paths.map { URL(fileURLWithPath: $0).lastPathComponent }) == ["photo.jpg", "photo-1.jpg"])
            for path in paths {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let image = try KFCrossPlatformImage(data: data)
                #expect(ImageFormat(data: data) == .JPEG && image.pixelWidth == 16 && image.pixelHeight == 12)
            }
            let single = cacheDir + "/single.jpg"
            let one = try await Self.kf(["fetch", server.url("/x/photo.jpg").absoluteString, "-o", single, "--cache-dir", cacheDir])
            #expect(one.status == 0, "\(one.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: single)) == jpeg)
        }
    }

    @Test func prefetchSummaryCountsAreExactAndASecondRunSkipsAll() async throws {
        try await Self.withServer { server, cacheDir in
            for index in 0..<6 { server.route("/p\(index).png", .ok(DownloaderKit.png)) }
            server.route("/missing.png", .status(404))
            let list = URL(fileURLWithPath: cacheDir).appendingPathComponent("list.txt")
            let urls = (0..<6).map { server.url("/p\($0).png").absoluteString }
            try (["# images"] + urls + ["", urls[0]]).joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
            let arguments = ["--file", list.path, "--processor", "downsample(8x8)", "--concurrency", "3", "--json", "--cache-dir", cacheDir]

            let withFailure = try await Self.kf(["prefetch", server.url("/missing.png").absoluteString] + arguments)
            let missing = server.url("/missing.png").absoluteString
            #expect(withFailure.status == 1)
            #expect(withFailure.stderr.split(separator: "\n").filter { $0.hasPrefix("kf: ") } == [
                "kf: \(missing): the server answered \(missing) with the invalid status 404", "kf: 1 of 7 inputs failed",
            ])
            let summary = try #require(try Self.lines(withFailure).last)
            #expect(summary["completed"] as? Int == 6 && summary["skipped"] as? Int == 0 && summary["failed"] as? Int == 1)
            #expect((0..<6).allSatisfy { server.requestCount(for: "/p\($0).png") == 1 })

            let again = try await Self.kf(["prefetch"] + arguments)
            #expect(again.status == 0, "\(again.stderr)")
            let second = try #require(try Self.lines(again).last)
            #expect(second["completed"] as? Int == 0 && second["skipped"] as? Int == 6 && second["failed"] as? Int == 0)
            #expect((0..<6).allSatisfy { server.requestCount(for: "/p\($0).png") == 1 })

            #expect(try await Self.kf(["prefetch", "--cache-dir", cacheDir]).status == 2)
            #expect(try await Self.kf(["prefetch", urls[0], "--concurrency", "0"]).status == 2)
        }
    }
}
