import Foundation
import KingfisherTestServer
import XCTVapor
import XCTest
// snippet: vapor-avatar-route
import Kingfisher
import KingfisherVapor
import Vapor
// end snippet
// snippet: vapor-mount-image-server
import KingfisherServer
import KingfisherVapor
import Vapor
// end snippet

/// docs/ServerSideSwift.md's Vapor examples, compiled with the adapter's tests (the repository's
/// DocSnippetTests checks that the guide shows them as they are here); the tests below run them
/// against an origin on 127.0.0.1.
struct ServerSideSwiftVaporSnippets {
    // snippet: vapor-avatar-route
    /// Sizes the application's image pipeline and adds GET /avatar/NAME: NAME.jpg from the origin,
    /// 128 pixels square at most and round, as PNG.
    func configure(_ app: Application, origin: URL, cacheFolder: URL) {
        app.kingfisher.configuration = .init(
            name: "avatars", cacheDirectory: cacheFolder,   // in a container, a volume
            memoryCostLimit: 64 * 1024 * 1024, diskSizeLimit: 1024 * 1024 * 1024,
            downloadTimeout: 10, maximumResponseSize: 20 * 1024 * 1024)
        let processor = DownsamplingImageProcessor(size: CGSize(width: 128, height: 128))
            |> RoundCornerImageProcessor(cornerRadius: 64)
        app.get("avatar", ":name") { req async throws -> Response in
            let name = try req.parameters.require("name")
            guard name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw Abort(.badRequest, reason: "a name is letters and digits")
            }
            let options: KingfisherOptionsInfo = [.processor(processor), .cacheSerializer(FormatIndicatedCacheSerializer.png)]
            // 404, 413, 422, 502, 504 or 503 as an Abort when the retrieval fails.
            let result = try await req.kingfisher.retrieveImage(with: origin.appendingPathComponent("\(name).jpg"), options: options)
            // PNG with ETag, Last-Modified and Cache-Control, or 304 for a matching If-None-Match.
            return try req.kingfisher.response(for: result.image, format: .PNG, maxAge: 86_400)
        }
    }
    // end snippet

    // snippet: vapor-mount-image-server
    /// kf serve's configuration: URLs signed with `key`, sources from two places only, thumbor's
    /// URLs below /thumbor and imgproxy's below /imgproxy (relative to the mount point).
    func imageServerConfiguration(key: Data, thumborKey: Data, imgproxy: ImgproxyConfiguration) -> ImageServerConfiguration {
        ImageServerConfiguration(
            signingKey: key,
            allowedSources: SourceAllowList(["images.example.com", "https://bucket.example.com/public/"]),
            mounts: [
                GrammarMount(prefix: "thumbor", grammar: ThumborGrammar(securityKey: thumborKey, allowsUnsafe: false)),
                GrammarMount(prefix: "imgproxy", grammar: ImgproxyGrammar(configuration: imgproxy)),
            ])
    }

    /// Serves those URLs below /images, beside the application's own routes; GET /gallery/NAME
    /// answers the signed path of a 400-pixel WebP of NAME.jpg.
    func mountImages(in app: Application, configuration: ImageServerConfiguration, origin: URL) throws {
        let server = try app.kingfisher.mountImageServer(at: "images", configuration: configuration)
        app.get("gallery", ":name") { req async throws -> String in
            let name = try req.parameters.require("name")
            guard name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw Abort(.badRequest, reason: "a name is letters and digits")
            }
            let source = origin.appendingPathComponent("\(name).jpg")
            return "/images" + server.path(for: source, spec: "downsample(400x400)", format: .webp)
        }
    }
    // end snippet
}

/// The guide's Vapor examples, run.
final class ServerSideSwiftVaporSnippetTests: XCTestCase {
    func testTheAvatarRouteAnswersARoundPNGAnd304() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/ada.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let app = try await Application.make(.testing)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-vapor-doc-\(UUID().uuidString)")
        ServerSideSwiftVaporSnippets().configure(app, origin: origin.url("/"), cacheFolder: folder)
        var etag = ""
        try await app.test(.GET, "avatar/ada") { response async throws in
            XCTAssertEqual(response.status, .ok, response.body.string)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/png")
            let image = try KFCrossPlatformImage(data: Data(buffer: response.body))
            XCTAssertEqual(image.size, CGSize(width: 128, height: 84))
            XCTAssertFalse(image.isOpaque)
            etag = try XCTUnwrap(response.headers.first(name: .eTag))
        }
        try await app.test(.GET, "avatar/ada", headers: ["If-None-Match": etag]) { response async throws in
            XCTAssertEqual(response.status, .notModified)
        }
        try await app.test(.GET, "avatar/nobody") { response async throws in
            XCTAssertEqual(response.status, .notFound)
        }
        try await app.test(.GET, "avatar/a.b") { response async throws in
            XCTAssertEqual(response.status, .badRequest)
        }
        XCTAssertEqual(origin.requestCount(for: "/ada.jpg"), 1)
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testTheMountedServerAnswersTheGallerysSignedPath() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/ada.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let app = try await Application.make(.testing)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-vapor-doc-\(UUID().uuidString)")
        app.kingfisher.configuration = .init(name: "doc", cacheDirectory: folder)
        var configuration = ServerSideSwiftVaporSnippets().imageServerConfiguration(
            key: Data("doc-key".utf8), thumborKey: Data("doc-thumbor-key".utf8),
            imgproxy: try ImgproxyConfiguration(keys: [Array("k".utf8)], salts: [Array("s".utf8)]))
        XCTAssertEqual(configuration.mounts.map(\.prefix), ["/thumbor", "/imgproxy"])
        // The example's sources are not reachable here: the origin on 127.0.0.1 is allowed instead.
        configuration.allowedSources = SourceAllowList(["127.0.0.1"])
        configuration.allowedAddresses = ["127.0.0.1"]
        try ServerSideSwiftVaporSnippets().mountImages(in: app, configuration: configuration, origin: origin.url("/"))
        var path = ""
        try await app.test(.GET, "gallery/ada") { response async throws in
            XCTAssertEqual(response.status, .ok)
            path = response.body.string
        }
        XCTAssertTrue(path.hasPrefix("/images/"), path)
        try await app.test(.GET, path) { response async throws in
            XCTAssertEqual(response.status, .ok, response.body.string)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/webp")
            let size = try KFCrossPlatformImage(data: Data(buffer: response.body)).size
            XCTAssertEqual(size.width, 400)
            XCTAssertEqual(size.height, 262.5, accuracy: 0.5)
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }
}
