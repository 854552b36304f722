import Foundation
import HTTPTypes
import Kingfisher
import KingfisherServer
import Vapor

extension Application.Kingfisher {
    /// Serves `kf serve`'s URLs below `path`: its own signed grammar, and thumbor's and imgproxy's
    /// where ``KingfisherServer/ImageServerConfiguration/mounts`` puts them (their prefixes are
    /// relative to `path`), with `/health`, `/healthcheck` and `/metrics`.
    ///
    /// Requests are answered by ``KingfisherServer/ImageServer/response(to:)``, the code that
    /// answers `kf serve`'s own: the same statuses, reasons and headers (`ETag`, `Last-Modified`,
    /// `Cache-Control`, `Vary`), `304` for a matching `If-None-Match`, headers only for `HEAD`, and
    /// `404` for a path below `path` that the server does not serve. The demo page is not served.
    /// Each request is logged in one line by `logger` (the application's by default).
    ///
    /// Each component of `path` takes one segment (constants and `:parameters`; a `**` is refused).
    /// `manager` fetches the origins; by default one made for the server: a disk cache named
    /// `image-server` in the folder of ``Application/Kingfisher/configuration``'s `cacheDirectory`
    /// and no decoded images in memory (renditions are kept encoded). Its downloader is set to the
    /// configuration's limits, and shut down with the application.
    ///
    /// - Returns: The server, to sign paths with ``KingfisherServer/ImageServer/path(for:spec:format:)``
    ///   and read its ``KingfisherServer/ImageServer/metrics``.
    /// - Throws: When the disk cache's folder cannot be made, or `path` holds a `**`.
    @discardableResult
    public func mountImageServer(
        at path: PathComponent...,
        configuration: ImageServerConfiguration,
        manager: KingfisherManager? = nil,
        logger: Logger? = nil
    ) throws -> ImageServer {
        try mountImageServer(at: path, configuration: configuration, manager: manager, logger: logger)
    }

    /// Serves the image server's URLs below `path`, given as an array; see the variadic form.
    @discardableResult
    public func mountImageServer(
        at path: [PathComponent],
        configuration: ImageServerConfiguration,
        manager: KingfisherManager? = nil,
        logger: Logger? = nil
    ) throws -> ImageServer {
        let prefix = path.flatMap { component -> [PathComponent] in
            if case .constant(let text) = component { return text.pathComponents }
            return [component]
        }
        if prefix.contains(where: { if case .catchall = $0 { true } else { false } }) {
            throw Abort(.internalServerError, reason: "the image server cannot be mounted below a catch-all (**) path component")
        }
        let server = ImageServer(
            configuration: configuration, manager: try manager ?? makeServerManager(), logger: logger ?? application.logger)
        let routes = application.routes.grouped(prefix)
        for method in [HTTPMethod.GET, .HEAD] {
            routes.on(method, .catchall) { request async -> Response in
                await server.answer(request, mountDepth: prefix.count)
            }
        }
        application.lifecycle.use(ImageServerLifecycle(server: server))
        return server
    }

    /// The image server's own manager: its disk cache beside the application's, nothing decoded in memory.
    private func makeServerManager() throws -> KingfisherManager {
        let cache = try ImageCache(name: "image-server", cacheDirectoryURL: configuration.cacheDirectory)
        cache.memoryStorage.config.totalCostLimit = 0
        return KingfisherManager(downloader: ImageDownloader(name: "image-server", maxConnectionsPerHost: 16), cache: cache)
    }
}

extension ImageServer {
    /// Answers a Vapor request whose first `mountDepth` path segments are the mount point.
    func answer(_ request: Request, mountDepth: Int) async -> Response {
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let method = HTTPRequest.Method(request.method.rawValue) ?? .get
        let answer = await response(to: ImageServerRequest(
            method: method, path: Self.path(request.url.path, below: mountDepth), query: request.url.query,
            headerFields: fields, peerAddress: request.remoteAddress?.ipAddress))
        var headers = HTTPHeaders()
        for field in answer.headerFields { headers.add(name: field.name.rawName, value: field.value) }
        if !headers.contains(name: .contentLength) {
            headers.add(name: .contentLength, value: String(answer.body.readableBytes))
        }
        let status = HTTPResponseStatus(statusCode: Int(answer.status.code), reasonPhrase: answer.status.reasonPhrase)
        // As given: a HEAD answer's Content-Length is the image's, though it carries no body.
        return Response(status: status, version: request.version, headersNoUpdate: headers, body: .init(buffer: answer.body))
    }

    /// What `path` (percent-encoded) holds below its first `depth` segments, starting with `/`;
    /// empty segments are skipped as Vapor's router skips them.
    static func path(_ path: String, below depth: Int) -> String {
        var rest = Substring(path)
        for _ in 0..<depth {
            rest = rest.drop { $0 == "/" }
            rest = rest.drop { $0 != "/" }
        }
        return rest.isEmpty ? "/" : String(rest)
    }
}

/// Shuts an image server's downloader down with the application.
struct ImageServerLifecycle: LifecycleHandler {
    let server: ImageServer

    func shutdownAsync(_ application: Application) async {
        await server.shutdown()
    }

    /// The synchronous `Application.shutdown()` runs off the event loops, so it may wait here.
    func shutdown(_ application: Application) {
        let done = DispatchSemaphore(value: 0)
        let server = server
        Task {
            await server.shutdown()
            done.signal()
        }
        done.wait()
    }
}
