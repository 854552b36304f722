import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// `kf info`, `convert`, `process` and `fetch` with AVIF, HEIC and JPEG XL, run as a user would,
/// on the `Fixtures/pipeline` files (a 48×32 gradient) and damaged copies of them.
@Suite struct KFFormatCommandTests {
    static let names = ["gradient.avif", "gradient.heic", "gradient.jxl"]

    /// Writes the fixture `name` into `directory` and returns its path.
    static func fixture(_ name: String, in directory: URL) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Fixtures.data("pipeline/\(name)").write(to: url)
        return url.path
    }

    /// Runs `body` with a fresh temporary folder, removed afterwards.
    static func inFolder(_ body: (URL) async throws -> Void) async throws {
        let directory = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    @Test(arguments: names)
    func infoReadsTheHeaderAndVerifyDecodes(name: String) async throws {
        try await Self.inFolder { directory in
            let file = try Self.fixture(name, in: directory)
            let header = try await KFCommandTests.run(["info", file, "--json"])
            #expect(header.status == 0, "\(header.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(header.stdout.utf8)) as? [String: Any])
            #expect(object["width"] as? Int == 48 && object["height"] as? Int == 32 && object["frames"] as? Int == 1)
            let verified = try await KFCommandTests.run(["info", file, "--verify", "--json"])
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    @Test(arguments: names)
    func convertReadsEachFormat(name: String) async throws {
        try await Self.inFolder { directory in
            let input = try Self.fixture(name, in: directory)
            let output = directory.appendingPathComponent("out.png")
            let run = try await KFCommandTests.run(["convert", input, output.path])
            #expect(run.status == 0, "\(run.stderr)")
            let image = try KFCrossPlatformImage(data: Data(contentsOf: output))
            let reference = try KFCrossPlatformImage(data: Fixtures.data("pipeline/gradient.png"))
            #expect(TestImages.meanDifference(image.frames[0], reference.frames[0]) < 4)
        }
    }

    @Test func convertWritesAVIFAndJPEGXLWithSpeedAndEffort() async throws {
        try await Self.inFolder { directory in
            let input = try Self.fixture("gradient.png", in: directory)
            for (name, extra) in [("out.avif", ["--speed", "9", "--quality", "60"]), ("out.jxl", ["--effort", "3"]),
                                  ("lossless.jxl", ["--lossless"])] {
                let output = directory.appendingPathComponent(name)
                let run = try await KFCommandTests.run(["convert", input, output.path] + extra)
                #expect(run.status == 0, "\(name): \(run.stderr)")
                let header = try ImageHeader(data: Data(contentsOf: output))
                #expect(header.format == (name.hasSuffix("avif") ? .AVIF : .JXL) && header.pixelWidth == 48)
            }
            let lossless = try KFCrossPlatformImage(data: Data(contentsOf: directory.appendingPathComponent("lossless.jxl")))
            let reference = try KFCrossPlatformImage(data: Fixtures.data("pipeline/gradient.png"))
            #expect(TestImages.maxDifference(lossless.frames[0], reference.frames[0]) == 0)
        }
    }

    @Test func speedAndEffortAreCheckedBeforeAnythingIsRead() async throws {
        try await Self.inFolder { directory in
            let input = directory.appendingPathComponent("missing.png").path
            for (output, flags, words) in [
                ("o.avif", ["--speed", "11"], "--speed must be 0...10"),
                ("o.png", ["--speed", "5"], "--speed applies to AVIF output only"),
                ("o.jxl", ["--effort", "0"], "--effort must be 1...9"),
                ("o.webp", ["--effort", "5"], "--effort applies to JPEG XL output only"),
            ] {
                let run = try await KFCommandTests.run(["convert", input, directory.appendingPathComponent(output).path] + flags)
                #expect(run.status == 2 && run.stderr.contains(words), "\(flags): \(run.stderr)")
            }
        }
    }

    @Test func writingHEICIsRefusedInOneLineWithExitStatus1() async throws {
        try await Self.inFolder { directory in
            let input = try Self.fixture("gradient.png", in: directory)
            let output = directory.appendingPathComponent("out.heic")
            let convert = try await KFCommandTests.run(["convert", input, output.path])
            #expect(convert.status == 1 && !convert.signalled)
            #expect(convert.stderr == "kf: \(output.path): \(HEICWords.refusal)\n")
            let process = try await KFCommandTests.run(["process", input, output.path, "--processor", "blur(1)"])
            #expect(process.status == 1 && process.stderr == "kf: \(output.path): \(HEICWords.refusal)\n")
            let serializer = try await KFCommandTests.run(
                ["process", input, directory.appendingPathComponent("x.png").path, "--processor", "blur(1)", "--serializer", "heic"])
            #expect(serializer.status == 1 && serializer.stderr.contains("cannot write HEIC"))
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    @Test func processKeepsAVIFAndJPEGXLAndWritesAProcessedHEICAsJPEG() async throws {
        try await Self.inFolder { directory in
            for (name, written) in [("gradient.avif", ImageFormat.AVIF), ("gradient.jxl", .JXL), ("gradient.heic", .JPEG)] {
                let input = try Self.fixture(name, in: directory)
                // No image extension: the default serializer chooses by the input's format.
                let output = directory.appendingPathComponent("\(name).out")
                let run = try await KFCommandTests.run(["process", input, output.path, "--processor", "resize(24x16)"])
                #expect(run.status == 0, "\(name): \(run.stderr)")
                let header = try ImageHeader(data: Data(contentsOf: output))
                #expect(header.format == written && header.pixelWidth == 24 && header.pixelHeight == 16, "\(name)")
            }
            let input = try Self.fixture("gradient.png", in: directory)
            for (serializer, format) in [("avif", ImageFormat.AVIF), ("jxl", .JXL)] {
                let output = directory.appendingPathComponent("by-\(serializer).bin")
                let run = try await KFCommandTests.run(
                    ["process", input, output.path, "--processor", "blur(1)", "--serializer", serializer])
                #expect(run.status == 0, "\(serializer): \(run.stderr)")
                #expect(try ImageFormat(data: Data(contentsOf: output)) == format)
            }
        }
    }

    @Test(arguments: names)
    func truncatedAndCorruptFilesFailInOneLine(name: String) async throws {
        try await Self.inFolder { directory in
            let original = try Fixtures.data("pipeline/\(name)")
            var corrupt = original
            // Overwrite the second half (the coded image data) with a pattern no decoder accepts.
            for index in (corrupt.count / 2)..<corrupt.count { corrupt[index] = UInt8(truncatingIfNeeded: index &* 151) }
            let damaged: [(String, Data)] = [
                ("truncated-header-\(name)", original.prefix(24)),
                ("truncated-\(name)", original.prefix(original.count * 2 / 3)),
                ("corrupt-\(name)", corrupt),
            ]
            for (file, data) in damaged {
                let path = directory.appendingPathComponent(file).path
                try data.write(to: URL(fileURLWithPath: path))
                for arguments in [["convert", path, directory.appendingPathComponent("x.png").path], ["info", path, "--verify"],
                                  ["process", path, directory.appendingPathComponent("y.png").path, "--processor", "blur(1)"]] {
                    let run = try await KFCommandTests.run(arguments)
                    #expect(run.status == 1 && !run.signalled, "\(arguments): status \(run.status)")
                    #expect(run.stderr.hasPrefix("kf: \(path): ") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
                }
            }
        }
    }

    @Test(arguments: names)
    func fetchCachesTheBytesAsTheyCameAndWritesOtherFormats(name: String) async throws {
        let original = try Fixtures.data("pipeline/\(name)")
        try await KFFetchCommandTests.withServer { server, cacheDir in
            server.route("/\(name)", .ok(original))
            let url = server.url("/\(name)").absoluteString
            let output = URL(fileURLWithPath: cacheDir).appendingPathComponent("copy-\(name)")
            let fetched = try await KFFetchCommandTests.kf(["fetch", url, "--cache-dir", cacheDir, "-o", output.path, "--json"])
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(try Data(contentsOf: output) == original)
            let path = try await KFCommandTests.run(["cache", "path", url, "--cache-dir", cacheDir])
            let stored = try Data(contentsOf: URL(fileURLWithPath: path.stdout.trimmingCharacters(in: .newlines)))
            #expect(stored == original, "the disk cache holds the downloaded bytes")

            let png = URL(fileURLWithPath: cacheDir).appendingPathComponent("as.png")
            let converted = try await KFFetchCommandTests.kf(["fetch", url, "--cache-dir", cacheDir, "-o", png.path])
            #expect(converted.status == 0, "\(converted.stderr)")
            #expect(try ImageHeader(data: Data(contentsOf: png)).pixelWidth == 48)
        }
    }

    @Test func aDamagedDownloadUnderAProcessorIsReportedByItsDecoder() async throws {
        try await KFFetchCommandTests.withServer { server, cacheDir in
            for (name, words) in [("gradient.avif", "cannot decode AVIF data"), ("gradient.heic", "cannot decode HEIC data")] {
                var corrupt = try Fixtures.data("pipeline/\(name)")
                for index in (corrupt.count / 2)..<corrupt.count { corrupt[index] = UInt8(truncatingIfNeeded: index &* 151) }
                server.route("/\(name)", .ok(corrupt))
                let url = server.url("/\(name)").absoluteString
                let run = try await KFFetchCommandTests.kf(["fetch", url, "--cache-dir", cacheDir, "--processor", "blur(1)"])
                #expect(run.status == 1 && !run.signalled)
                #expect(run.stderr.hasPrefix("kf: \(url): \(words)") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            }
        }
    }

    @Test func fetchRefusesToWriteAnotherFormatAsHEIC() async throws {
        try await KFFetchCommandTests.withServer { server, cacheDir in
            server.route("/a.png", .ok(try Fixtures.data("pipeline/gradient.png")))
            let url = server.url("/a.png").absoluteString
            let output = URL(fileURLWithPath: cacheDir).appendingPathComponent("a.heic")
            let run = try await KFFetchCommandTests.kf(["fetch", url, "--cache-dir", cacheDir, "-o", output.path])
            #expect(run.status == 1 && run.stderr.contains("cannot write HEIC: the image is PNG"), "\(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
    }
}

/// The refusal `kf` prints for HEIC output, as the tests expect it word for word.
enum HEICWords {
    static let refusal = "cannot write HEIC: Kingfisher decodes HEIC but has no HEVC encoder; use .avif, .jxl, .webp, .jpg or .png"
}
