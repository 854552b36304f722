import Foundation
import Kingfisher
import KingfisherTestServer
import KingfisherVapor
import Vapor
import XCTVapor
import XCTest

/// The route answered by XCTVapor's in-process tester, with a real origin on 127.0.0.1.
final class InProcessTests: XCTestCase {
    func testImageIsAnsweredWithCachingHeaders() async throws {
        let origin = try await TestHTTPServer.start()
        let jpeg = try sampleJPEG()
        origin.route("/a.jpg", .ok(jpeg, contentType: "image/jpeg"))
        let (app, folder) = try await makeApp()
        try await app.test(.GET, "image?url=\(query(origin.url("/a.jpg")))&format=png") { response async throws in
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/png")
            let etag = try XCTUnwrap(response.headers.first(name: .eTag))
            XCTAssertTrue(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 66, etag)
            XCTAssertEqual(response.headers.first(name: .cacheControl), "public, max-age=60")
            XCTAssertTrue(response.headers.first(name: .lastModified)?.hasSuffix(" GMT") == true)
            let body = Data(buffer: response.body)
            XCTAssertEqual(body.kf.imageFormat, .PNG)
            let decoded = try KFCrossPlatformImage(data: body)
            XCTAssertEqual(decoded.kf.size, try KFCrossPlatformImage(data: jpeg).kf.size)
        }
        // No format asked: the source's own (JPEG, named by the URL on this cache hit).
        try await app.test(.GET, "image?url=\(query(origin.url("/a.jpg")))") { response async throws in
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/jpeg")
            XCTAssertEqual(Data(buffer: response.body).kf.imageFormat, .JPEG)
        }
        XCTAssertEqual(origin.requestCount(for: "/a.jpg"), 1)
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testMatchingIfNoneMatchIsAnswered304() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, folder) = try await makeApp()
        let path = "image?url=\(query(origin.url("/a.jpg")))&format=png"
        var etag = ""
        try await app.test(.GET, path) { response async throws in
            etag = try XCTUnwrap(response.headers.first(name: .eTag))
        }
        try await app.test(.GET, path, headers: ["If-None-Match": "\"other\", W/\(etag)"]) { response async throws in
            XCTAssertEqual(response.status, .notModified)
            XCTAssertEqual(response.headers.first(name: .eTag), etag)
            XCTAssertEqual(response.body.readableBytes, 0)
        }
        try await app.test(.GET, path, headers: ["If-None-Match": "\"other\""]) { response async throws in
            XCTAssertEqual(response.status, .ok)
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testOriginFailuresMapToStatuses() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/missing.jpg", .status(404))
        origin.route("/text.jpg", .ok(Data("this is not an image".utf8), contentType: "image/jpeg"))
        origin.route("/broken.jpg", .status(500))
        origin.route("/big.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, folder) = try await makeApp(maximumResponseSize: 1000)
        let cases: [(String, HTTPStatus)] = [
            ("/missing.jpg", .notFound),
            ("/text.jpg", .unprocessableEntity),
            ("/broken.jpg", .badGateway),
            ("/big.jpg", .payloadTooLarge),
        ]
        for (path, status) in cases {
            try await app.test(.GET, "image?url=\(query(origin.url(path)))") { response async throws in
                XCTAssertEqual(response.status, status, path)
            }
        }
        let refusing = try RefusingPort()
        let refused = try XCTUnwrap(URL(string: "http://127.0.0.1:\(refusing.port)/a.jpg"))
        try await app.test(.GET, "image?url=\(query(refused))") { response async throws in
            XCTAssertEqual(response.status, .badGateway)
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testStalledOriginIsAnswered504() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/stalled.jpg", .never())
        let (app, folder) = try await makeApp(downloadTimeout: 0.5)
        try await app.test(.GET, "image?url=\(query(origin.url("/stalled.jpg")))") { response async throws in
            XCTAssertEqual(response.status, .gatewayTimeout)
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testCancellingTheTaskCancelsTheDownload() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/held.jpg", .never())
        // A timeout longer than the watchdog: only the cancellation can end the download in time.
        let (app, folder) = try await makeApp(downloadTimeout: 120)
        let request = Request(application: app, on: app.eventLoopGroup.next())
        let url = origin.url("/held.jpg")
        let task = Task { try await request.kingfisher.retrieveImage(with: url) }
        try await withWatchdog(.seconds(20)) {
            await origin.waitUntilRequestCount(for: "/held.jpg", reaches: 1)
            task.cancel()
            do {
                _ = try await task.value
                XCTFail("a cancelled retrieval returned an image")
            } catch let abort as Abort {
                XCTAssertEqual(abort.status, .serviceUnavailable)
            }
            // The origin never answers: only the cancelled download can close its connection.
            // The server learns of the close asynchronously; poll until it has (the watchdog bounds it).
            while origin.openConnectionCount > 0 {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }

    func testConfigurationMakesTheManagerAndIsFixedAfterFirstUse() async throws {
        let (app, folder) = try await makeApp(downloadTimeout: 3, maximumResponseSize: 4096)
        let manager = app.kingfisher.manager
        XCTAssertTrue(app.kingfisher.manager === manager)
        XCTAssertEqual(manager.downloader.downloadTimeout, 3)
        XCTAssertEqual(manager.downloader.maximumResponseSize, 4096)
        XCTAssertEqual(manager.cache.memoryStorage.config.totalCostLimit, 128 * 1024 * 1024)
        XCTAssertEqual(manager.cache.diskStorage.directoryURL.deletingLastPathComponent().standardizedFileURL.path,
                       folder.standardizedFileURL.path)
        app.kingfisher.configuration = .init(downloadTimeout: 9)
        XCTAssertEqual(app.kingfisher.configuration.downloadTimeout, 3)
        XCTAssertTrue(app.kingfisher.manager === manager)
        try await stop(app, folder: folder)
    }

    func testShutdownStopsTheDownloader() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, folder) = try await makeApp()
        let manager = app.kingfisher.manager
        XCTAssertTrue(app.kingfisher.manager === manager)
        try await stop(app, folder: folder)
        do {
            _ = try await manager.retrieveImage(with: .network(origin.url("/a.jpg")), options: [.forceRefresh])
            XCTFail("the downloader still downloads after the application shut down")
        } catch {
            XCTAssertTrue(error is KingfisherError, "\(error)")
        }
        XCTAssertEqual(origin.requestCount(for: "/a.jpg"), 0)
        try await origin.shutdown()
    }
}
