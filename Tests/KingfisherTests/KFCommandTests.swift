import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Runs the built `kf` executable as a user would and checks its output and exit status.
@Suite struct KFCommandTests {
    struct Run {
        var status: Int32
        var signalled: Bool
        var stdout: String
        var stderr: String
    }

    /// The `kf` built beside this test bundle (`swift build --build-tests` builds both).
    static func kfURL() throws -> URL {
        var directory = Bundle.module.bundleURL.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("kf")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "kf next to \(Bundle.module.bundleURL.path)"])
    }

    /// Runs `kf` with `arguments` to the end, off the caller's thread.
    static func run(_ arguments: [String]) async throws -> Run {
        Run(try await ChildProcess.run(try kfURL().path, arguments))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kf-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func infoPrintsTheHeaderAsJSON() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("rotated.jpg")
        let jpeg = try KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 40, height: 30)).encoded(as: .JPEG)
        try JPEGCodecTests.insertingExif(orientation: .right, into: jpeg).write(to: file)
        let result = try await Self.run(["info", file.path, "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["format"] as? String == "JPEG")
        #expect(object["width"] as? Int == 30 && object["height"] as? Int == 40)
        #expect(object["frames"] as? Int == 1 && object["orientation"] as? Int == 6)
    }

    @Test func convertAppliesOrientationAndChoosesTheFormatByExtension() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jpg")
        let jpeg = try KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 40, height: 30)).encoded(as: .JPEG)
        try JPEGCodecTests.insertingExif(orientation: .left, into: jpeg).write(to: input)
        let output = directory.appendingPathComponent("out.jpeg")
        let result = try await Self.run(["convert", input.path, output.path, "--quality", "70"])
        #expect(result.status == 0, "\(result.stderr)")
        let header = try ImageHeader(data: Data(contentsOf: output))
        #expect(header.format == .JPEG && header.orientation == .up)
        #expect(header.pixelWidth == 30 && header.pixelHeight == 40)
    }

    @Test func exitStatusSaysWhatWentWrong() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("garbage.png")
        try Data("not an image at all".utf8).write(to: garbage)
        let bad = try await Self.run(["convert", garbage.path, directory.appendingPathComponent("x.png").path])
        #expect(bad.status == 1 && bad.stderr.contains("not PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL"))
        #expect(bad.stderr.split(separator: "\n").count == 1)

        let missingPath = directory.appendingPathComponent("missing.jpg").path
        let missing = try await Self.run(["info", missingPath])
        #expect(missing.status == 1 && missing.stderr == "kf: \(missingPath): cannot read: No such file or directory\n")

        // Usage errors: one line, exit 2, pointing at the subcommand's help.
        for arguments in [
            ["convert", garbage.path, directory.appendingPathComponent("x.bmp").path], ["info"], ["frobnicate"],
            ["convert", garbage.path, "x.png", "--quality", "300"], ["convert", garbage.path, "x.png", "--bogus"],
        ] {
            let usage = try await Self.run(arguments)
            #expect(usage.status == 2 && usage.stderr.split(separator: "\n").count == 1, "\(arguments): \(usage.stderr)")
            #expect(usage.stderr.hasPrefix("kf: ") && usage.stderr.contains("--help')"), "\(usage.stderr)")
        }
        let help = try await Self.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("EXIT STATUS") && help.stderr.isEmpty)
        for status in ["  0    Success.", "  1    An input failed", "  2    Usage error", "  130  Interrupted"] {
            #expect(help.stdout.contains(status))
        }
        let subcommandHelp = try await Self.run(["cache", "clean", "--help"])
        #expect(subcommandHelp.status == 0 && subcommandHelp.stdout.contains("Exit status: 0 on success"))
    }

    /// A refused connection is one plain line naming the host and port.
    @Test func aRefusedConnectionNamesTheHostAndPort() async throws {
        let closed = try RefusingPort()
        defer { closed.close() }
        let url = closed.url("/a.png").absoluteString
        let expected = "kf: \(url): could not connect to 127.0.0.1:\(closed.port): connection refused\n"
        let info = try await Self.run(["info", url])
        #expect(info.status == 1)
        #expect(info.stderr == expected)
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetch = try await Self.run(["fetch", url, "--cache-dir", directory.path])
        #expect(fetch.status == 1)
        #expect(fetch.stderr == expected)
        let prefetch = try await Self.run(["prefetch", url, "--cache-dir", directory.path])
        #expect(prefetch.status == 1)
        #expect(prefetch.stderr.contains("kf: \(url): could not connect to 127.0.0.1:\(closed.port): connection refused\n"), "\(prefetch.stderr)")
        #expect(!prefetch.stderr.contains("errno"))
    }

    /// A TLS failure says what failed in words, without a dependency's file paths.
    @Test func anUntrustedCertificateIsOnePlainLine() async throws {
        let server = try await TestHTTPServer.start(tls: true)
        server.route("/a.png", .ok(Data("x".utf8)))
        let url = server.url("/a.png").absoluteString
        let info = try await Self.run(["info", url])
        try await server.shutdown()
        #expect(info.status == 1)
        #expect(info.stderr == "kf: \(url): TLS handshake with localhost:\(server.port) failed: the certificate is not trusted\n")
    }

    /// A processor spec's mistake is named where it is, with the command's help pointed at once.
    @Test func processorSpecMistakesSayWhereTheyAre() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png")
        try TestImages.gradient(width: 8, height: 8).encoded(as: .PNG).write(to: input)
        let output = directory.appendingPathComponent("out.png").path
        let pipe = try await Self.run(["process", input.path, output, "--processor", "downsample(200x200)|round(20)"])
        #expect(pipe.status == 2)
        #expect(pipe.stderr == "kf: bad --processor: in 'downsample(200x200)|round(20)': a single '|' at column 20: "
            + "processors are chained with '|>' (see 'kf process --help')\n")
        let typo = try await Self.run(["process", input.path, output, "--processor", "Downsample(4x4)|>blurr(2)"])
        #expect(typo.status == 2)
        #expect(typo.stderr == "kf: bad --processor: in 'blurr(2)': unknown processor 'blurr' at column 18; did you mean 'blur'? "
            + "(see 'kf process --help')\n")
        let cased = try await Self.run(["process", input.path, output, "--processor", "Downsample(4x4)|>BlackWhite"])
        #expect(cased.status == 0, "\(cased.stderr)")
    }

    @Test func damagedInputsNeverEndInASignal() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let valid = try TestImages.gradient(width: 48, height: 32).encoded(as: .JPEG)
        let inputs = Mutations.damaged(valid, count: 40, seed: 7)
        for (index, input) in inputs.enumerated() {
            let file = directory.appendingPathComponent("damaged-\(index).jpg")
            try input.write(to: file)
            let result = try await Self.run(["convert", file.path, directory.appendingPathComponent("out-\(index).jpg").path])
            #expect(!result.signalled && (result.status == 0 || result.status == 1), "input \(index): \(result.status) \(result.stderr)")
        }
    }
}

@Suite struct KFProcessCommandTests {
    @Test func processRunsTheChainAndPicksTheFormat() async throws {
        let directory = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jpg")
        try TestImages.gradient(width: 400, height: 300).encoded(as: .JPEG).write(to: input)

        let png = directory.appendingPathComponent("out.png")
        let run = try await KFCommandTests.run(["process", input.path, png.path, "--processor", "downsample(100x100)|>round(10)"])
        #expect(run.status == 0, "\(run.stderr)")
        let image = try KFCrossPlatformImage(data: Data(contentsOf: png))
        #expect(image.pixelWidth == 100 && image.pixelHeight == 75 && !image.isOpaque)
        #expect(image.firstFrame.pixel(x: 0, y: 0)?.a == 0)

        // Without an extension the input's format is kept, as Kingfisher's default serializer does.
        let bare = directory.appendingPathComponent("out")
        #expect(try await KFCommandTests.run(["process", input.path, bare.path, "--processor", "blur(2)"]).status == 0)
        #expect(try Data(contentsOf: bare).kf.imageFormat == .JPEG)

        let forced = directory.appendingPathComponent("forced.jpg")
        #expect(try await KFCommandTests.run(["process", input.path, forced.path, "--processor", "blackWhite", "--serializer", "webp"]).status == 0)
        #expect(try Data(contentsOf: forced).kf.imageFormat == .WebP)
    }

    @Test func processReportsBadSpecsAndBadImages() async throws {
        let directory = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png")
        try TestImages.gradient(width: 20, height: 20).encoded(as: .PNG).write(to: input)
        let out = directory.appendingPathComponent("out.png").path

        let badSpec = try await KFCommandTests.run(["process", input.path, out, "--processor", "round(20)|>blur(x)"])
        #expect(badSpec.status == 2 && badSpec.stderr.contains("in 'blur(x)'"))
        #expect(badSpec.stderr.split(separator: "\n").count == 1)
        let badSerializer = try await KFCommandTests.run(["process", input.path, out, "--processor", "blur(1)", "--serializer", "bmp"])
        #expect(badSerializer.status == 2 && badSerializer.stderr.split(separator: "\n").count == 1)
        let noSpec = try await KFCommandTests.run(["process", input.path, out])
        #expect(noSpec.status == 2 && noSpec.stderr.split(separator: "\n").count == 1)

        let garbage = directory.appendingPathComponent("garbage.png")
        try Data("nope".utf8).write(to: garbage)
        let bad = try await KFCommandTests.run(["process", garbage.path, out, "--processor", "blur(1)"])
        #expect(bad.status == 1 && bad.stderr.contains("not PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL"))
        #expect(bad.stderr.hasPrefix("kf: \(garbage.path): ") && bad.stderr.split(separator: "\n").count == 1)

        let unwritable = try await KFCommandTests.run(["process", input.path, directory.path + "/no/such/folder/out.png", "--processor", "blur(1)"])
        #expect(unwritable.status == 1 && unwritable.stderr.split(separator: "\n").count == 1)
        #expect(unwritable.stderr.contains("/no/such/folder/out.png: cannot write: "))
    }
}

extension KFCommandTests.Run {
    /// The run of a finished child, its output as text.
    init(_ run: ChildProcess.Run) {
        self.init(
            status: run.termination.status, signalled: run.termination.wasSignalled,
            stdout: String(decoding: run.standardOutput, as: UTF8.self),
            stderr: String(decoding: run.standardError, as: UTF8.self))
    }
}
