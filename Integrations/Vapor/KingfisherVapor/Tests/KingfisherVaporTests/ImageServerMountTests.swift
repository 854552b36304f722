import Foundation
import Kingfisher
import KingfisherServer
import KingfisherTestServer
import KingfisherVapor
import Vapor
import XCTVapor
import XCTest

/// `app.kingfisher.mountImageServer(at:…)` asked through XCTVapor's in-process tester, with a
/// real origin on 127.0.0.1: the three grammars, refusals, validators, and the server's lifetime.
final class ImageServerMountTests: XCTestCase {
    func testSignedNativeURLIsAnsweredWithTheImageAndItsValidators() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, _, folder) = try await makeImageServerApp(configuration: try SignedPaths.configuration())
        let path = "images" + SignedPaths(origin: origin).native("/a.jpg", spec: "downsample(64x64)", format: .png)
        var etag = ""
        var length = ""
        try await app.test(.GET, path) { response async throws in
            XCTAssertEqual(response.status, .ok, response.body.string)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/png")
            XCTAssertEqual(response.headers.first(name: .cacheControl), "public, max-age=600")
            XCTAssertTrue(response.headers.first(name: .lastModified)?.hasSuffix(" GMT") == true)
            etag = try XCTUnwrap(response.headers.first(name: .eTag))
            length = try XCTUnwrap(response.headers.first(name: .contentLength))
            let body = Data(buffer: response.body)
            XCTAssertEqual(String(body.count), length)
            XCTAssertEqual(body.kf.imageFormat, .PNG)
            XCTAssertEqual(try pixelSize(of: body), CGSize(width: 64, height: 42))
        }
        try await app.test(.HEAD, path) { response async throws in
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.headers.first(name: .eTag), etag)
            XCTAssertEqual(response.headers.first(name: .contentLength), length)
            XCTAssertEqual(response.body.readableBytes, 0)
        }
        try await app.test(.GET, path, headers: ["If-None-Match": "\"other\", \(etag)"]) { response async throws in
            XCTAssertEqual(response.status, .notModified)
            XCTAssertEqual(response.headers.first(name: .eTag), etag)
            XCTAssertEqual(response.body.readableBytes, 0)
        }
        XCTAssertEqual(origin.requestCount(for: "/a.jpg"), 1)
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testSignedThumborAndImgproxyURLsAreAnswered() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, _, folder) = try await makeImageServerApp(configuration: try SignedPaths.configuration())
        let paths = SignedPaths(origin: origin)
        // thumbor keeps the source's format and crops to the size asked for.
        try await app.test(.GET, "images" + paths.thumbor("/a.jpg", options: "100x50")) { response async throws in
            XCTAssertEqual(response.status, .ok, response.body.string)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/jpeg")
            let body = Data(buffer: response.body)
            XCTAssertEqual(body.kf.imageFormat, .JPEG)
            XCTAssertEqual(try pixelSize(of: body), CGSize(width: 100, height: 50))
        }
        // imgproxy fits inside the box, in the format the extension names, with its own headers.
        let imgproxy = try paths.imgproxy("/a.jpg", options: "rs:fit:80:80", extension: "webp")
        try await app.test(.GET, "images" + imgproxy) { response async throws in
            XCTAssertEqual(response.status, .ok, response.body.string)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/webp")
            XCTAssertEqual(response.headers.first(name: "Content-Security-Policy"), ImgproxyGrammar.contentSecurityPolicy)
            let body = Data(buffer: response.body)
            XCTAssertEqual(body.kf.imageFormat, .WebP)
            let size = try pixelSize(of: body)
            XCTAssertEqual(size.width, 80)
            XCTAssertEqual(size.height, 52.5, accuracy: 0.5)
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testBadSignaturesAreRefusedWithEachGrammarsStatus() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, _, folder) = try await makeImageServerApp(configuration: try SignedPaths.configuration())
        let paths = SignedPaths(origin: origin)
        let native = paths.native("/a.jpg", spec: "-", format: .png)
        let thumbor = paths.thumbor("/a.jpg", options: "100x50")
        let imgproxy = try paths.imgproxy("/a.jpg", options: "rs:fit:80:80", extension: "png")
        let refusals: [(String, HTTPStatus)] = [
            (forged(native, below: ""), .forbidden),   // kf serve's own grammar: 403
            (forged(thumbor, below: "/thumbor"), .badRequest),   // thumbor: 400
            (forged(imgproxy, below: "/imgproxy"), .forbidden),   // imgproxy: 403
        ]
        for (path, status) in refusals {
            try await app.test(.GET, "images" + path) { response async throws in
                XCTAssertEqual(response.status, status, path)
                XCTAssertEqual(response.headers.first(name: .contentType), "text/plain; charset=utf-8")
                XCTAssertEqual(response.headers.first(name: .cacheControl), "no-store")
                XCTAssertFalse(response.body.string.isEmpty)
            }
        }
        XCTAssertEqual(origin.requestCount(for: "/a.jpg"), 0)
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testHealthMetricsUnknownPathsAndTheAppsOwnRoutes() async throws {
        let (app, _, folder) = try await makeImageServerApp(configuration: try SignedPaths.configuration())
        try await app.test(.GET, "images/health") { response async throws in
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.body.string, "ok\n")
        }
        try await app.test(.GET, "images/nothing/here") { response async throws in
            XCTAssertEqual(response.status, .notFound)
            XCTAssertTrue(response.body.string.hasPrefix("nothing is served at /nothing/here"), response.body.string)
        }
        try await app.test(.GET, "images/metrics") { response async throws in
            XCTAssertEqual(response.status, .ok)
            XCTAssertTrue(response.body.string.contains("kf_serve_requests_total"), response.body.string)
            XCTAssertTrue(response.body.string.contains("route=\"unmatched\""), response.body.string)
        }
        try await app.test(.GET, "hello") { response async throws in
            XCTAssertEqual(response.body.string, "the app's own route\n")
        }
        try await stop(app, folder: folder)
    }

    func testTheServerShutsDownWithTheApplication() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, server, folder) = try await makeImageServerApp(configuration: try SignedPaths.configuration())
        try await stop(app, folder: folder)
        do {
            _ = try await server.manager.retrieveImage(with: .network(origin.url("/a.jpg")), options: [.forceRefresh])
            XCTFail("the image server's downloader still downloads after the application shut down")
        } catch {
            XCTAssertTrue(error is KingfisherError, "\(error)")
        }
        XCTAssertEqual(origin.requestCount(for: "/a.jpg"), 0)
        try await origin.shutdown()
    }

    func testAMountPathWithACatchAllIsRefused() async throws {
        let app = try await Application.make(.testing)
        XCTAssertThrowsError(try app.kingfisher.mountImageServer(at: "images", "**", configuration: try SignedPaths.configuration()))
        try await app.asyncShutdown()
    }

    /// `path` (below `prefix`) with its signature segment replaced by one that signs nothing.
    private func forged(_ path: String, below prefix: String) -> String {
        prefix + "/AAAA" + path.dropFirst(prefix.count + 1).drop { $0 != "/" }
    }
}
