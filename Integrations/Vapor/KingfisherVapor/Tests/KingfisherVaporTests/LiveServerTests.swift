import Foundation
import Kingfisher
import KingfisherTestServer
import KingfisherVapor
import Vapor
import XCTVapor
import XCTest

/// A real Vapor server listening on 127.0.0.1 (a free port), asked over TCP, with a real origin.
final class LiveServerTests: XCTestCase {
    func testRunningServerAnswersImageAnd304() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        let (app, folder) = try await makeApp()
        let tester = try app.testable(method: .running(hostname: "127.0.0.1", port: 0))
        let path = "image?url=\(query(origin.url("/a.jpg")))&format=png"
        var etag = ""
        try await tester.test(.GET, path) { response async throws in
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(response.headers.first(name: .contentType), "image/png")
            XCTAssertEqual(Data(buffer: response.body).kf.imageFormat, .PNG)
            etag = try XCTUnwrap(response.headers.first(name: .eTag))
        }
        try await tester.test(.GET, path, headers: ["If-None-Match": etag]) { response async throws in
            XCTAssertEqual(response.status, .notModified)
        }
        try await tester.test(.GET, "image?url=\(query(origin.url("/nothing.jpg")))") { response async throws in
            XCTAssertEqual(response.status, .notFound)
        }
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }
}
