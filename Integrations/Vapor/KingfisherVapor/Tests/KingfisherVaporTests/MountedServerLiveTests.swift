import Foundation
import Kingfisher
import KingfisherServer
import KingfisherTestServer
import KingfisherVapor
import Vapor
import XCTVapor
import XCTest

/// A real Vapor server on 127.0.0.1 with the image server mounted at `/images`, beside `kf serve`'s
/// own application for the same configuration, both asked over TCP with one client: every answer
/// of the mount is `kf serve`'s, status, headers and bytes.
final class MountedServerLiveTests: XCTestCase {
    /// What is compared: the status, the body, and every header but the ones that name the
    /// moment or the server (`Date`, `Last-Modified`, `Server`) or the connection.
    struct Answer: Equatable, CustomStringConvertible {
        var status: UInt
        var headers: [String: String]
        var body: Data

        init(_ response: ClientResponse) {
            status = response.status.code
            var headers: [String: String] = [:]
            for (name, value) in response.headers {
                let name = name.lowercased()
                guard !["date", "last-modified", "server", "connection", "keep-alive"].contains(name) else { continue }
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            self.headers = headers
            body = response.body.map { Data(buffer: $0) } ?? Data()
        }

        var description: String {
            "\(status) \(headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }) \(body.count) bytes"
        }
    }

    func testTheMountAnswersAsKfServeDoes() async throws {
        let origin = try await TestHTTPServer.start()
        origin.route("/a.jpg", .ok(try sampleJPEG(), contentType: "image/jpeg"))
        origin.route("/text.jpg", .ok(Data("not an image".utf8), contentType: "image/jpeg"))
        let configuration = try SignedPaths.configuration()
        let (app, _, folder) = try await makeImageServerApp(configuration: configuration)
        let twinFolder = folder.appendingPathComponent("kf-serve")
        let twin = ImageServer(
            configuration: configuration,
            manager: KingfisherManager(downloader: ImageDownloader(name: "kf-serve-twin"),
                                       cache: try ImageCache(name: "twin", cacheDirectoryURL: twinFolder)),
            logger: Logger(label: "kf.serve.twin", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let vaporPort = try XCTUnwrap(app.http.server.shared.localAddress?.port)
        let paths = SignedPaths(origin: origin)
        let native = paths.native("/a.jpg", spec: "downsample(64x64)|>round(8)", format: .auto)
        // Each request, and the status both must answer.
        let requests: [(HTTPMethod, String, HTTPHeaders, UInt)] = [
            (.GET, native, ["Accept": "image/webp,*/*"], 200),
            (.GET, native, ["Accept": "image/png"], 200),
            (.HEAD, native, ["Accept": "image/webp"], 200),
            (.GET, paths.thumbor("/a.jpg", options: "fit-in/120x120/filters:format(png)"), [:], 200),
            (.GET, try paths.imgproxy("/a.jpg", options: "rs:fill:60:60/q:70", extension: "jpg"), [:], 200),
            (.GET, paths.native("/text.jpg", spec: "-", format: .png), [:], 422),
            (.GET, paths.native("/missing.jpg", spec: "-", format: .png), [:], 404),
            (.GET, "/AAAA" + native.dropFirst().drop { $0 != "/" }, [:], 403),
            (.GET, "/thumbor/AAAA/100x50/127.0.0.1:\(origin.port)/a.jpg", [:], 400),
            (.GET, "/health", [:], 200),
            (.GET, "/nothing", [:], 404),
        ]
        let validated = try await withKfServe(twin) { twinPort in
            var validated = 0
            for (method, path, headers, status) in requests {
                let mounted = Answer(try await app.client.send(method, headers: headers, to: "http://127.0.0.1:\(vaporPort)/images\(path)"))
                let served = Answer(try await app.client.send(method, headers: headers, to: "http://127.0.0.1:\(twinPort)\(path)"))
                XCTAssertEqual(mounted.status, status, "\(method) \(path): \(String(decoding: mounted.body, as: UTF8.self))")
                XCTAssertEqual(mounted, served, "\(method) \(path)")
                // Then each image with its own entity tag: 304 from both.
                guard mounted.status == 200, let etag = mounted.headers["etag"] else { continue }
                var validating = headers
                validating.replaceOrAdd(name: .ifNoneMatch, value: etag)
                let notModified = Answer(try await app.client.send(
                    method, headers: validating, to: "http://127.0.0.1:\(vaporPort)/images\(path)"))
                XCTAssertEqual(notModified.status, 304, "\(method) \(path)")
                let twinNotModified = Answer(try await app.client.send(
                    method, headers: validating, to: "http://127.0.0.1:\(twinPort)\(path)"))
                XCTAssertEqual(notModified, twinNotModified, "\(method) \(path) with If-None-Match")
                validated += 1
            }
            return validated
        }
        XCTAssertEqual(validated, 5)
        await app.server.shutdown()
        try await stop(app, folder: folder)
        try await origin.shutdown()
    }
}
