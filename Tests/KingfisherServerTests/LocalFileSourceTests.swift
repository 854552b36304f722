import Foundation
import Testing
@testable import Kingfisher
@testable import KingfisherServer

@Suite("Local file sources: --local-root, IMGPROXY_LOCAL_FILESYSTEM_ROOT, thumbor's file loader")
struct LocalFileSourceTests {
    /// A folder `root` holding `photos/a.jpg` (64×48) and a link out of it, beside `secret.jpg`.
    struct Files {
        let parent: URL
        let root: URL
        init() throws {
            parent = FileManager.default.temporaryDirectory.appendingPathComponent("kf-local-\(UUID().uuidString)")
            root = parent.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
            try ServeKit.jpeg.write(to: root.appendingPathComponent("photos/a.jpg"))
            try ServeKit.jpeg.write(to: parent.appendingPathComponent("secret.jpg"))
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent("escape.jpg").path, withDestinationPath: parent.appendingPathComponent("secret.jpg").path)
            try FileManager.default.createSymbolicLink(
                atPath: root.appendingPathComponent("inside.jpg").path, withDestinationPath: root.appendingPathComponent("photos/a.jpg").path)
        }
        func remove() { try? FileManager.default.removeItem(at: parent) }
        func localRoot(_ setting: String) throws -> LocalFileRoot { try LocalFileRoot(path: root.path, setting: setting) }
    }

    static func nativePath(_ server: ImageServer, _ source: String, spec: String = "downsample(16x16)") throws -> String {
        server.path(for: try #require(URL(string: source)), spec: spec, format: .png)
    }

    @Test("kf's own file: sources: served below the root; '..', absolute paths and links out are refused")
    func native() async throws {
        let files = try Files()
        defer { files.remove() }
        let root = try files.localRoot("--local-root")
        try await ServeKit.run(configure: { $0.localRoot = root }) { harness in
            let served = try await harness.get(try Self.nativePath(harness.server, "file:photos/a.jpg"))
            #expect(served.status == .ok, "\(served.text)")
            let image = try KFCrossPlatformImage(data: served.data)
            #expect(image.pixelWidth == 16)
            let again = try await harness.get(try Self.nativePath(harness.server, "file:photos/a.jpg"))
            #expect(again.data == served.data)
            #expect(try await harness.get(try Self.nativePath(harness.server, "file:inside.jpg")).status == .ok)

            let dotdot = try await harness.get(try Self.nativePath(harness.server, "file:photos/../../secret.jpg"))
            #expect(dotdot.status == .forbidden)
            #expect(dotdot.text.contains("'..'") && dotdot.text.contains("--local-root"), "\(dotdot.text)")
            let absolute = try await harness.get(try Self.nativePath(harness.server, "file:///etc/passwd"))
            #expect(absolute.status == .forbidden)
            #expect(absolute.text.contains("absolute path"), "\(absolute.text)")
            let link = try await harness.get(try Self.nativePath(harness.server, "file:escape.jpg"))
            #expect(link.status == .forbidden)
            #expect(link.text.contains("symbolic link"), "\(link.text)")
            let missing = try await harness.get(try Self.nativePath(harness.server, "file:photos/none.jpg"))
            #expect(missing.status == .notFound)
            #expect(missing.text.contains("no such file"), "\(missing.text)")
            let folder = try await harness.get(try Self.nativePath(harness.server, "file:photos"))
            #expect(folder.status == .notFound)
        }
    }

    @Test("a local file goes through the size limit, the pixel limit and the caches")
    func limitsAndCaches() async throws {
        let files = try Files()
        defer { files.remove() }
        let root = try files.localRoot("--local-root")
        try await ServeKit.run(configure: {
            $0.localRoot = root
            $0.limits.maxSourceBytes = Int64(ServeKit.jpeg.count - 1)
        }) { harness in
            let tooLarge = try await harness.get(try Self.nativePath(harness.server, "file:photos/a.jpg"))
            #expect(tooLarge.status == .contentTooLarge)
            #expect(tooLarge.text.contains("--max-source-bytes"), "\(tooLarge.text)")
        }
        try await ServeKit.run(configure: {
            $0.localRoot = root
            $0.limits.maxPixelsPerFrame = 100
        }) { harness in
            let tooMany = try await harness.get(try Self.nativePath(harness.server, "file:photos/a.jpg"))
            #expect(tooMany.status == .unprocessableContent, "\(tooMany.text)")
        }
        try await ServeKit.run(configure: { $0.localRoot = root }) { harness in
            let path = try Self.nativePath(harness.server, "file:photos/a.jpg")
            #expect(try await harness.get(path).status == .ok)
            #expect(try await harness.get(path).status == .ok)
            let exposition = String(decoding: harness.server.metrics.exposition(), as: UTF8.self)
            #expect(exposition.contains("kf_serve_cache_total{tier=\"disk\""), "\(exposition)")
            // A changed file is a new rendition.
            try ServeKit.png.write(to: files.root.appendingPathComponent("photos/a.jpg"))
            let changed = try await harness.get(path)
            #expect(changed.status == .ok)
            #expect(try KFCrossPlatformImage(data: changed.data).pixelWidth == 16)
        }
    }

    @Test("without a root, a file: source is refused naming the setting")
    func noRoot() async throws {
        try await ServeKit.run { harness in
            let answer = try await harness.get(try Self.nativePath(harness.server, "file:photos/a.jpg"))
            #expect(answer.status == .forbidden)
            #expect(answer.text.contains("--local-root"), "\(answer.text)")
        }
    }

    @Test("imgproxy's local:// sources below IMGPROXY_LOCAL_FILESYSTEM_ROOT")
    func imgproxy() async throws {
        let files = try Files()
        defer { files.remove() }
        let root = try files.localRoot("IMGPROXY_LOCAL_FILESYSTEM_ROOT")
        let grammar = ImgproxyGrammar(configuration: try ImgproxyConfiguration(), allowsUnsigned: true, localRoot: root)
        try await ServeKit.run(configure: { $0.mounts = [GrammarMount(prefix: "/i", grammar: grammar)] }) { harness in
            let served = try await harness.get("/i/insecure/rs:fit:16:16/plain/local:///photos/a.jpg@png")
            #expect(served.status == .ok, "\(served.text)")
            #expect(try KFCrossPlatformImage(data: served.data).pixelWidth == 16)
            let dotdot = try await harness.get("/i/insecure/rs:fit:16:16/plain/local:///photos/%2e%2e/%2e%2e/secret.jpg@png")
            #expect(dotdot.status == .forbidden)
            #expect(dotdot.text.contains("IMGPROXY_LOCAL_FILESYSTEM_ROOT"), "\(dotdot.text)")
            #expect(try await harness.get("/i/insecure/rs:fit:16:16/plain/local:///escape.jpg@png").status == .forbidden)
        }
        let without = ImgproxyGrammar(configuration: try ImgproxyConfiguration(), allowsUnsigned: true)
        try await ServeKit.run(configure: { $0.mounts = [GrammarMount(prefix: "/i", grammar: without)] }) { harness in
            let answer = try await harness.get("/i/insecure/rs:fit:16:16/plain/local:///photos/a.jpg@png")
            #expect(answer.status == .notFound)
            #expect(answer.text.contains("IMGPROXY_LOCAL_FILESYSTEM_ROOT"), "\(answer.text)")
        }
    }

    @Test("thumbor's file loader below FILE_LOADER_ROOT_PATH, and its HTTP fallback")
    func thumbor() async throws {
        let files = try Files()
        defer { files.remove() }
        let root = try files.localRoot("FILE_LOADER_ROOT_PATH")
        let fileOnly = ThumborGrammar(securityKey: nil, allowsUnsafe: true, settings: ThumborSettings(loader: .file), localRoot: root)
        let fallback = ThumborGrammar(securityKey: nil, allowsUnsafe: true, settings: ThumborSettings(loader: .fileWithHTTPFallback),
                                      localRoot: root)
        try await ServeKit.run(configure: {
            $0.mounts = [GrammarMount(prefix: "/t", grammar: fileOnly), GrammarMount(prefix: "/f", grammar: fallback)]
        }) { harness in
            harness.origin.route("/remote.png", .ok(ServeKit.png, contentType: "image/png"))
            let served = try await harness.get("/t/unsafe/16x12/photos/a.jpg")
            #expect(served.status == .ok, "\(served.text)")
            #expect(try KFCrossPlatformImage(data: served.data).pixelWidth == 16)
            #expect(try await harness.get("/t/unsafe/16x12/photos/%2e%2e/%2e%2e/secret.jpg").status == .forbidden)
            #expect(try await harness.get("/t/unsafe/16x12/photos/none.jpg").status == .notFound)
            let fromFile = try await harness.get("/f/unsafe/16x12/photos/a.jpg")
            #expect(fromFile.status == .ok, "\(fromFile.text)")
            let remote = harness.origin.url("/remote.png").absoluteString.replacingOccurrences(of: "http://", with: "")
            let fromOrigin = try await harness.get("/f/unsafe/16x12/\(remote)")
            #expect(fromOrigin.status == .ok, "\(fromOrigin.text)")
        }
    }
}
