import HTTPTypes
import Logging
import NIOCore

/// What the server answers a request with, once its path and method are read.
enum ImageServerRoute: Sendable {
    /// An image in `grammar`, whose part of the path (below its mount, percent-encoded) is `rawPath`.
    case image(any RenditionGrammar, rawPath: Substring)
    /// `/health` (`ok`) or `/healthcheck` (thumbor's `WORKING`): `healthy`, or `503 draining`.
    case health(healthy: String)
    /// `/metrics`, in Prometheus' text format.
    case metrics
    /// A path or method the server does not serve.
    case unmatched
}

extension ImageServer {
    /// Answers `request` as `kf serve` answers it, for an HTTP framework other than Hummingbird.
    ///
    /// Below the mount point: the configured ``ImageServerConfiguration/mounts`` (their prefixes
    /// relative to it), `GET` and `HEAD` of `/{signature}/{format}/{spec}/{source}` (unless a mount
    /// takes the root), `GET /health`, `GET /healthcheck` and `GET /metrics`; any other path is `404`
    /// and any other method `405`, each with a one-line reason. The demo page is not served here.
    /// Each request is logged (one line) and counted in ``metrics``, and every answer carries
    /// `X-Kf-Replica` when the configuration names the instance, and `Connection: close` while
    /// draining. Never throws: failures are answers.
    public func response(to request: ImageServerRequest) async -> ImageServerResponse {
        let peer = request.peerAddress.flatMap { AddressRange.address(in: Substring($0)) }
        let client = clientAddress.resolve(peer: peer, headers: request.headerFields)
        var response = await respond(to: request, route: route(method: request.method, path: request.path), client: client)
        if let field = replicaField { response.headerFields[field.name] = field.value }
        if isDraining { response.headerFields[.connection] = "close" }
        return response
    }

    /// The route of a request for `path` (below the mount point, percent-encoded) with `method`.
    func route(method: HTTPRequest.Method, path: String) -> ImageServerRoute {
        guard method == .get || method == .head else { return .unmatched }
        let rawPath = Substring(path)
        for mount in configuration.mounts {
            if let below = mount.rawPath(below: rawPath) { return .image(mount.grammar, rawPath: below) }
        }
        if method == .get {
            switch path {
            case "/health": return .health(healthy: "ok\n")
            case "/healthcheck": return .health(healthy: "WORKING")
            case "/metrics": return configuration.servesMetricsSeparately ? .unmatched : .metrics
            default: break
            }
        }
        let segments = rawPath.split(separator: "/", omittingEmptySubsequences: false)
        if !configuration.rootIsMounted, segments.count == 5, segments[0].isEmpty, !segments.dropFirst().contains(where: \.isEmpty) {
            return .image(nativeGrammar, rawPath: rawPath)
        }
        return .unmatched
    }

    /// Answers `request` on `route`, logging it (naming `client`) and recording its metrics.
    func respond(to request: ImageServerRequest, route: ImageServerRoute, client: String?) async -> ImageServerResponse {
        let start = ContinuousClock.now
        switch route {
        case .image(let grammar, let rawPath):
            metrics.requestStarted()
            var tier: CacheTier?
            var reason: String?
            let response: ImageServerResponse
            do {
                (response, tier) = try await imageResponse(to: request, grammar: grammar, rawPath: rawPath)
            } catch {
                let failure = error as? ImageServerError ?? ImageServerError(.internalServerError, "\(error)")
                reason = failure.reason
                response = failure.response()
            }
            metrics.requestEnded()
            record(request, route: .image, response: response, since: start, tier: tier, reason: reason, client: client,
                   grammar: grammar.name)
            return response
        case .health(let healthy):
            // A health check's `503 draining` is logged at `info`, like its `200`: it is expected.
            let draining = isDraining
            let response = ImageServerResponse(
                status: draining ? .serviceUnavailable : .ok,
                headerFields: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"],
                body: ByteBuffer(string: draining ? "draining" : healthy))
            record(request, route: .health, response: response, since: start, tier: nil, reason: draining ? "draining" : nil,
                   client: client, level: draining ? .info : nil)
            return response
        case .metrics:
            let response = ImageServerResponse(
                status: .ok, headerFields: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ByteBuffer(bytes: metrics.exposition()))
            record(request, route: .metrics, response: response, since: start, tier: nil, reason: nil, client: client)
            return response
        case .unmatched:
            let refusal = Self.refusal(method: request.method, path: request.path, servesMetrics: !configuration.servesMetricsSeparately)
            var response = refusal.response()
            if refusal.status == .methodNotAllowed { response.headerFields[.allow] = "GET, HEAD" }
            record(request, route: .unmatched, response: response, since: start, tier: nil, reason: refusal.reason, client: client)
            return response
        }
    }

    /// `405` for a method other than GET and HEAD, `404` for a path the server does not serve.
    static func refusal(method: HTTPRequest.Method, path: String, servesMetrics: Bool = true) -> ImageServerError {
        let path = path.count > 200 ? path.prefix(200) + "…" : path
        guard method == .get || method == .head else {
            return ImageServerError(.methodNotAllowed, "\(method) is not answered: the server answers GET and HEAD requests only")
        }
        let others = servesMetrics ? "/health and /metrics are the other paths" : "/health is the other path (/metrics is on the metrics port)"
        return ImageServerError(.notFound, "nothing is served at \(path): images are at /SIGNATURE/FORMAT/SPEC/SOURCE, and \(others)")
    }

    /// Logs the one line of an answered request and counts it in the metrics.
    func record(
        _ request: ImageServerRequest, route: ServerRoute, response: ImageServerResponse, since start: ContinuousClock.Instant,
        tier: CacheTier?, reason: String?, client: String?, grammar: String? = nil, level: Logger.Level? = nil
    ) {
        record(method: request.method, path: request.path, route: route, status: response.status,
               bytes: response.body.readableBytes, since: start, tier: tier, reason: reason,
               client: client, grammar: grammar, level: level)
    }

    /// Logs the one line of an answered request and counts it in the metrics.
    func record(
        method: HTTPRequest.Method, path: String, route: ServerRoute, status: HTTPResponse.Status, bytes: Int,
        since start: ContinuousClock.Instant, tier: CacheTier?, reason: String?, client: String?, grammar: String? = nil,
        level: Logger.Level? = nil
    ) {
        let elapsed = ContinuousClock.now - start
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        metrics.recordRequest(route: route, status: Int(status.code), nanoseconds: nanoseconds, grammar: grammar)
        RequestLog.write(
            to: logger, method: method, path: path, status: Int(status.code), bytes: bytes, nanoseconds: nanoseconds,
            tier: tier, reason: reason, client: client, grammar: grammar, level: level)
    }
}
