import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// What `kf prefetch` and `kf fetch` store and write: the downloaded bytes unless asked otherwise,
/// and output files whose bytes are in the format their names and the report lines say.
@Suite struct KFKeptBytesTests {
    /// A 40×30 gradient JPEG stored on its side (EXIF orientation 6, so 30×40 upright): any
    /// re-encoding of its pixels differs from it.
    static let photo: Data = {
        let jpeg = (try? TestImages.gradient(width: 40, height: 30).encoded(as: .JPEG)) ?? Data()
        return JPEGCodecTests.insertingExif(orientation: .right, into: jpeg)
    }()

    /// The bytes the cache in `cacheDir` holds for `url` processed by `identifier`, if any.
    static func entry(_ url: String, identifier: String = "", in cacheDir: String) throws -> Data? {
        let cache = try ImageCache(name: "default", cacheDirectoryURL: URL(fileURLWithPath: cacheDir))
        return try? Data(contentsOf: URL(fileURLWithPath: cache.cachePath(forKey: url, processorIdentifier: identifier)))
    }

    /// A fresh folder under `parent`.
    static func folder(_ name: String, in parent: String) throws -> String {
        let path = parent + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func prefetchCachesTheDownloadedBytesAndReencodesOnlyWhenAsked() async throws {
        try await KFFetchCommandTests.withServer { server, parent in
            server.route("/photo.jpg", .ok(Self.photo))
            let url = server.url("/photo.jpg").absoluteString
            let kept = try Self.folder("kept", in: parent), reencoded = try Self.folder("reencoded", in: parent)

            let plain = try await KFFetchCommandTests.kf(["prefetch", url, "--json", "--cache-dir", kept])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(try KFFetchCommandTests.lines(plain).last?["completed"] as? Int == 1)
            #expect(try Self.entry(url, in: kept) == Self.photo)

            let again = try await KFFetchCommandTests.kf(["prefetch", url, "--re-encode", "--json", "--cache-dir", reencoded])
            #expect(again.status == 0, "\(again.stderr)")
            let stored = try #require(try Self.entry(url, in: reencoded))
            #expect(stored != Self.photo && ImageFormat(data: stored) == .JPEG)
            let image = try KFCrossPlatformImage(data: stored)
            #expect(image.pixelWidth == 30 && image.pixelHeight == 40)

            // fetch keeps the bytes too, and reads the size (upright) from their header, on the
            // network and from the disk.
            let fetchCache = try Self.folder("fetch", in: parent)
            for cacheType in ["none", "disk"] {
                let fetched = try await KFFetchCommandTests.kf(["fetch", url, "--json", "--cache-dir", fetchCache])
                #expect(fetched.status == 0, "\(fetched.stderr)")
                let line = try #require(try KFFetchCommandTests.lines(fetched).first)
                #expect(line["cacheType"] as? String == cacheType && line["format"] as? String == "JPEG")
                #expect(line["width"] as? Int == 30 && line["height"] as? Int == 40)
            }
            #expect(try Self.entry(url, in: fetchCache) == Self.photo)
            #expect(server.requestCount(for: "/photo.jpg") == 3)
        }
    }

    @Test func prefetchChecksTheHeaderOnlyAndNamesWhyBytesAreNoImage() async throws {
        try await KFFetchCommandTests.withServer { server, parent in
            // A JPEG cut short after its header: its header reads, its pixels do not decode.
            let whole = try TestImages.gradient(width: 256, height: 256).encoded(as: .JPEG)
            let cut = whole.prefix(whole.count * 3 / 4)
            server.route("/cut.jpg", .ok(cut))
            server.route("/text.jpg", .ok(Data("not an image".utf8)))
            let url = server.url("/cut.jpg").absoluteString, text = server.url("/text.jpg").absoluteString
            let kept = try Self.folder("kept", in: parent), reencoded = try Self.folder("reencoded", in: parent)

            let plain = try await KFFetchCommandTests.kf(["prefetch", url, "--json", "--cache-dir", kept])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(try Self.entry(url, in: kept) == cut)

            // Decoding it, as --re-encode does, fails: the default run did not decode.
            let decoded = try await KFFetchCommandTests.kf(["prefetch", url, "--re-encode", "-q", "--cache-dir", reencoded])
            #expect(decoded.status == 1 && decoded.stderr.contains("truncated"), "\(decoded.stderr)")
            #expect(try Self.entry(url, in: reencoded) == nil)

            let refused = try await KFFetchCommandTests.kf(["prefetch", text, "-q", "--cache-dir", kept])
            #expect(refused.status == 1)
            #expect(KFOutputTests.lines(refused.stderr) == [
                "kf: \(text): cannot decode an image: the data is not PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL (first bytes: 6e 6f 74 20 61 6e 20 69)",
            ])
            #expect(try Self.entry(text, in: kept) == nil)
            let fetched = try await KFFetchCommandTests.kf(["fetch", text, "--cache-dir", kept])
            #expect(fetched.status == 1 && fetched.stderr.contains("the data is not PNG, JPEG, GIF, WebP, AVIF, HEIC or JPEG XL"), "\(fetched.stderr)")
        }
    }

    @Test func fetchOutputFileGetsTheFormatItsExtensionNamesOnTheNetworkAndFromTheCache() async throws {
        try await KFFetchCommandTests.withServer { server, parent in
            server.route("/photo.jpg", .ok(Self.photo))
            let url = server.url("/photo.jpg").absoluteString
            let cacheDir = try Self.folder("cache", in: parent)
            let out = try Self.folder("out", in: parent)
            let expected: [(String, ImageFormat)] = [("a.jpg", .JPEG), ("b.png", .PNG), ("c.webp", .WebP), ("d.gif", .GIF), ("e.jpeg", .JPEG)]
            // The first run downloads; every later one is a disk hit.
            for round in 0..<2 {
                for (name, format) in expected {
                    let path = "\(out)/\(round)-\(name)"
                    let run = try await KFFetchCommandTests.kf(["fetch", url, "-o", path, "--json", "--cache-dir", cacheDir])
                    #expect(run.status == 0, "\(run.stderr)")
                    let line = try #require(try KFFetchCommandTests.lines(run).first)
                    let data = try Data(contentsOf: URL(fileURLWithPath: path))
                    #expect(ImageFormat(data: data) == format, "\(round)-\(name)")
                    #expect(line["format"] as? String == format.rawValue && line["output"] as? String == path)
                    let image = try KFCrossPlatformImage(data: data)
                    #expect(image.pixelWidth == 30 && image.pixelHeight == 40, "\(round)-\(name)")
                    // JPEG is the original's format: its bytes are written unchanged.
                    if format == .JPEG { #expect(data == Self.photo, "\(round)-\(name)") }
                }
            }
            #expect(server.requestCount(for: "/photo.jpg") == 1)

            // The text line names the format written.
            let text = try await KFFetchCommandTests.kf(["fetch", url, "-o", "\(out)/t.png", "--cache-dir", cacheDir])
            #expect(text.stdout == "\(url): disk, 30×40 PNG -> \(out)/t.png\n")
        }
    }

    @Test func fetchWithAProcessorWritesTheSameFormatOnTheNetworkFromTheDiskAndFromACachedOriginal() async throws {
        try await KFFetchCommandTests.withServer { server, parent in
            server.route("/photo.jpg", .ok(Self.photo))
            let url = server.url("/photo.jpg").absoluteString
            let out = try Self.folder("out", in: parent)
            let spec = "downsample(10x10)"

            // Downloaded and processed, then found processed on disk.
            let cacheDir = try Self.folder("cache", in: parent)
            var written: [Data] = []
            for (round, cacheType) in ["none", "disk"].enumerated() {
                let path = "\(out)/\(round).jpg"
                let run = try await KFFetchCommandTests.kf(["fetch", url, "--processor", spec, "-o", path, "--json", "--cache-dir", cacheDir])
                #expect(run.status == 0, "\(run.stderr)")
                let line = try #require(try KFFetchCommandTests.lines(run).first)
                #expect(line["cacheType"] as? String == cacheType && line["format"] as? String == "JPEG")
                written.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
            #expect(written.allSatisfy { ImageFormat(data: $0) == .JPEG } && written[0] == written[1])

            // Processed from the original a prefetch cached, without a request: still JPEG.
            let warmed = try Self.folder("warmed", in: parent)
            #expect(try await KFFetchCommandTests.kf(["prefetch", url, "-q", "--cache-dir", warmed]).status == 0)
            let requests = server.requestCount(for: "/photo.jpg")
            let run = try await KFFetchCommandTests.kf(["fetch", url, "--processor", spec, "-o", "\(out)/", "--json", "--cache-dir", warmed])
            #expect(run.status == 0, "\(run.stderr)")
            let line = try #require(try KFFetchCommandTests.lines(run).first)
            #expect(line["format"] as? String == "JPEG" && line["output"] as? String == "\(out)/photo.jpg")
            #expect(ImageFormat(data: try Data(contentsOf: URL(fileURLWithPath: "\(out)/photo.jpg"))) == .JPEG)
            #expect(server.requestCount(for: "/photo.jpg") == requests)
        }
    }

    @Test func fetchIntoAFolderKeepsTheImagesFormatAndNamesItsExtension() async throws {
        try await KFFetchCommandTests.withServer { server, parent in
            server.route("/photo.jpg", .ok(Self.photo))
            // A URL whose name says PNG, serving a JPEG; and one with no extension.
            server.route("/shot.png", .ok(Self.photo))
            server.route("/avatar", .ok(DownloaderKit.png))
            let urls = ["/photo.jpg", "/shot.png", "/avatar"].map { server.url($0).absoluteString }
            let cacheDir = try Self.folder("cache", in: parent)
            var names: [[String]] = []
            for round in 0..<2 {
                let out = try Self.folder("out-\(round)", in: parent)
                let run = try await KFFetchCommandTests.kf(["fetch"] + urls + ["-o", out + "/", "--json", "--cache-dir", cacheDir])
                #expect(run.status == 0, "\(run.stderr)")
                let lines = try KFFetchCommandTests.lines(run)
                #expect(lines.map { $0["cacheType"] as? String } == Array(repeating: round == 0 ? "none" : "disk", count: 3))
                #expect(lines.map { $0["format"] as? String } == ["JPEG", "JPEG", "PNG"])
                let paths = lines.compactMap { $0["output"] as? String }
                names.append(paths.map { URL(fileURLWithPath: $0).lastPathComponent })
                let contents = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                #expect(contents == [Self.photo, Self.photo, DownloaderKit.png])
            }
            #expect(names == [["photo.jpg", "shot.jpg", "avatar.png"], ["photo.jpg", "shot.jpg", "avatar.png"]])
        }
    }
}
