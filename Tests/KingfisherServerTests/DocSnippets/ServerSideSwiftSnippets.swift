import Foundation
import HummingbirdTesting
import KingfisherTestServer
import Testing
// snippet: server-side-pipeline
import Kingfisher
// end snippet
// snippet: server-side-avatar-route
import Hummingbird
import Kingfisher
// end snippet

/// docs/ServerSideSwift.md's examples: one pipeline per process, an avatar route in Hummingbird,
/// the error statuses, an answer with caching headers, and a deadline that cancels the download.
/// DocSnippetTests checks the guide's text against these regions; the tests below run them against
/// an origin on 127.0.0.1.
struct ServerSideSwiftSnippets {
    // snippet: server-side-pipeline
    /// The image pipeline of the whole process: one cache, one downloader, one manager, made at
    /// start-up and shared by every request handler.
    func makeImagePipeline(cacheFolder: URL?) throws -> KingfisherManager {
        // nil: $XDG_CACHE_HOME, else ~/.cache (in deploy/container's image, the volume /var/cache/kf).
        let cache = try ImageCache(name: "avatars", cacheDirectoryURL: cacheFolder)
        cache.memoryStorage.config.totalCostLimit = 64 * 1024 * 1024   // decoded pixels, in bytes
        cache.memoryStorage.config.expiration = .seconds(600)
        cache.diskStorage.config.sizeLimit = 1024 * 1024 * 1024          // encoded files, in bytes
        cache.diskStorage.config.expiration = .days(30)
        let downloader = ImageDownloader(name: "avatars", maxConnectionsPerHost: 16)
        downloader.downloadTimeout = 10                                  // seconds without a byte
        downloader.maximumResponseSize = 20 * 1024 * 1024
        return KingfisherManager(downloader: downloader, cache: cache)
    }
    // end snippet

    // snippet: server-side-avatar-route
    /// GET /avatar/NAME: NAME.jpg from the origin, 128 pixels square at most and round, as PNG.
    func addAvatarRoute(to router: Router<BasicRequestContext>, manager: KingfisherManager, origin: URL) {
        let processor = DownsamplingImageProcessor(size: CGSize(width: 128, height: 128))
            |> RoundCornerImageProcessor(cornerRadius: 64)
        router.get("avatar/:name") { request, context -> Response in
            let name = try context.parameters.require("name")
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw HTTPError(.badRequest, message: "a name is letters and digits")
            }
            let source = origin.appendingPathComponent("\(name).jpg")
            let options: KingfisherOptionsInfo = [.processor(processor), .cacheSerializer(FormatIndicatedCacheSerializer.png)]
            let result = try await retrieveImage(source, options: options, manager: manager, within: .seconds(15))
            guard let png = result.image.kf.pngRepresentation() else {
                throw HTTPError(.internalServerError, message: "the avatar could not be encoded")
            }
            return imageResponse(png, contentType: "image/png", request: request)
        }
    }
    // end snippet

    // snippet: server-side-deadline
    /// The retrieval, or 504 after `limit`: the download and the processing are cancelled then.
    /// Cancelling the calling task (the client's request, where the framework cancels it) does the same.
    func retrieveImage(
        _ source: URL, options: KingfisherOptionsInfo, manager: KingfisherManager, within limit: Duration
    ) async throws -> RetrieveImageResult {
        try await withThrowingTaskGroup(of: RetrieveImageResult?.self) { group in
            group.addTask {
                do {
                    return try await manager.retrieveImage(with: source, options: options)
                } catch let error as KingfisherError {
                    throw httpError(for: error)
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let result = first else {
                throw HTTPError(.gatewayTimeout, message: "the image took too long")
            }
            return result
        }
    }
    // end snippet

    // snippet: server-side-errors
    /// The status for a failed retrieval: the origin's own 404 stays 404; an origin that failed or
    /// was too slow is 502 or 504; a source over the size limit 413; one that does not decode 422.
    func httpError(for error: KingfisherError) -> HTTPError {
        switch error {
        case .responseError(.invalidHTTPStatusCode(let response)) where response.statusCode == 404:
            return HTTPError(.notFound, message: "the origin has no such image")
        case .responseError(.downloadTimedOut):
            return HTTPError(.gatewayTimeout, message: "the origin is too slow")
        case .responseError(.responseTooLarge):
            return HTTPError(.contentTooLarge, message: "the source is too large")
        case .responseError:
            return HTTPError(.badGateway, message: "the origin failed: \(error.localizedDescription)")
        case .processorError:
            return HTTPError(.unprocessableContent, message: "the source is not an image that can be read")
        case .requestError(.taskCancelled), .requestError(.asyncTaskContextCancelled):
            return HTTPError(.serviceUnavailable, message: "the request was cancelled")
        default:
            return HTTPError(.internalServerError, message: error.localizedDescription)
        }
    }
    // end snippet

    // snippet: server-side-response
    /// An answer with the bytes, their type and caching headers; 304 when the client holds them.
    func imageResponse(_ bytes: Data, contentType: String, request: Request) -> Response {
        let etag = "\"\(String(bytes.base64EncodedString().kf.sha256.prefix(32)))\""
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=86400"
        if request.headers[values: .ifNoneMatch].contains(where: { $0 == etag || $0 == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        // Written in 64 KB pieces as the client takes them, rather than as one buffer.
        let body = ResponseBody(contentLength: bytes.count) { writer in
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 65_536, bytes.count)
                try await writer.write(ByteBuffer(bytes: bytes[offset..<end]))
                offset = end
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
    // end snippet
}

@Suite struct ServerSideSwiftSnippetTests {
    /// A 300×200 JPEG the origin serves as `ada.jpg`.
    static let photo: Data = (try? ServeKit.gradient(width: 300, height: 200, alpha: false).encoded(as: .JPEG)) ?? Data()

    /// Runs `body` against the guide's avatar route, in front of a fresh origin and cache.
    static func withAvatarRoute(_ body: @Sendable (TestHTTPServer, any TestClientProtocol) async throws -> Void) async throws {
        let origin = try await TestHTTPServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-server-side-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let snippets = ServerSideSwiftSnippets()
        let manager = try snippets.makeImagePipeline(cacheFolder: folder)
        let router = Router()
        snippets.addAvatarRoute(to: router, manager: manager, origin: origin.url("/avatars"))
        do {
            try await Application(router: router).test(.router) { client in try await body(origin, client) }
        } catch {
            try? await manager.downloader.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await manager.downloader.shutdown()
        try await origin.shutdown()
    }

    @Test func theAvatarRouteAnswersARoundThumbnailThenA304() async throws {
        try await Self.withAvatarRoute { origin, client in
            origin.route("/avatars/ada.jpg", .ok(Self.photo, contentType: "image/jpeg"))
            let first = try await client.execute(uri: "/avatar/ada", method: .get)
            #expect(first.status == .ok)
            #expect(first.headers[.contentType] == "image/png")
            #expect(first.headers[.cacheControl] == "public, max-age=86400")
            let image = try KFCrossPlatformImage(data: Data(buffer: first.body))
            #expect(image.size.width == 128 && (85...86).contains(image.size.height))
            #expect(!image.isOpaque)
            let etag = try #require(first.headers[.eTag])
            let again = try await client.execute(uri: "/avatar/ada", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            #expect(origin.requestCount(for: "/avatars/ada.jpg") == 1)
        }
    }

    @Test func failuresAnswerTheGuidesStatuses() async throws {
        try await Self.withAvatarRoute { origin, client in
            origin.route("/avatars/gone.jpg", .status(404))
            origin.route("/avatars/broken.jpg", .status(500))
            origin.route("/avatars/text.jpg", .ok(Data("not an image".utf8), contentType: "image/jpeg"))
            let gone = try await client.execute(uri: "/avatar/gone", method: .get)
            #expect(gone.status == .notFound)
            let broken = try await client.execute(uri: "/avatar/broken", method: .get)
            #expect(broken.status == .badGateway)
            let text = try await client.execute(uri: "/avatar/text", method: .get)
            #expect(text.status == .unprocessableContent)
            let badName = try await client.execute(uri: "/avatar/a-b", method: .get)
            #expect(badName.status == .badRequest)
        }
    }

    /// The origin holds the body until the gate opens, which it does only after the call returned.
    /// A task group waits for every child, so the call returns only because the deadline's
    /// cancellation stopped the download.
    @Test(.timeLimit(.minutes(1))) func theDeadlineCancelsTheDownloadAndAnswers504() async throws {
        let origin = try await TestHTTPServer.start()
        let gate = TestGate()
        origin.route("/held.jpg", .held(Self.photo, gate: gate))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-server-side-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let snippets = ServerSideSwiftSnippets()
        let manager = try snippets.makeImagePipeline(cacheFolder: folder)
        await #expect {
            _ = try await snippets.retrieveImage(origin.url("/held.jpg"), options: [], manager: manager, within: .milliseconds(300))
        } throws: { error in
            (error as? HTTPError)?.status == .gatewayTimeout
        }
        #expect(!gate.isOpen)
        gate.open()
        try await manager.downloader.shutdown()
        try await origin.shutdown()
    }
}
