import Foundation
import Kingfisher
import KingfisherTestServer
import KingfisherVapor
import Vapor
import XCTest

/// The repository's sample JPEG (Samples/kingfisher.jpg), the origin's image in these tests.
func sampleJPEG() throws -> Data {
    let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try Data(contentsOf: root.appendingPathComponent("Samples/kingfisher.jpg"))
}

/// A Vapor application in testing mode with a throw-away cache folder and one route,
/// `GET /image?url=…[&format=png]`, that answers the image through KingfisherVapor.
func makeApp(
    downloadTimeout: TimeInterval = 15,
    maximumResponseSize: Int64 = 20_000_000
) async throws -> (Application, URL) {
    let app = try await Application.make(.testing)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-vapor-\(UUID().uuidString)")
    app.kingfisher.configuration = .init(
        name: "test",
        cacheDirectory: folder,
        downloadTimeout: downloadTimeout,
        maximumResponseSize: maximumResponseSize
    )
    app.get("image") { req async throws -> Response in
        guard let text = req.query[String.self, at: "url"], let url = URL(string: text) else {
            throw Abort(.badRequest, reason: "url is required")
        }
        let format = req.query[String.self, at: "format"].flatMap(ImageFormat.init(fileExtension:))
        let result = try await req.kingfisher.retrieveImage(with: url)
        return try req.kingfisher.response(for: result, format: format, maxAge: 60)
    }
    return (app, folder)
}

/// Shuts `app` down and removes its cache folder.
func stop(_ app: Application, folder: URL) async throws {
    try await app.asyncShutdown()
    try? FileManager.default.removeItem(at: folder)
}

/// `url` percent-encoded as a query value.
func query(_ url: URL) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return url.absoluteString.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
}
