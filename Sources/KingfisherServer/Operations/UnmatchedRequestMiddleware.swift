import Hummingbird

/// The route a request was answered by, as `kf_serve_requests_total{route}` names it.
enum ServerRoute: String, Sendable {
    /// `GET /{signature}/{format}/{spec}/{source}`.
    case image
    /// `GET /health`.
    case health
    /// `GET /metrics`.
    case metrics
    /// The demo page and its signer.
    case demo
    /// No route: a path or method the server does not serve.
    case unmatched
}

/// Answers what no route matched with a reason, logged and counted (see
/// ``ImageServer/unmatchedRequestMiddleware()``).
struct UnmatchedRequestMiddleware<Context: RequestContext>: RouterMiddleware {
    let server: ImageServer

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            // Hummingbird's router throws this, and names the endpoint so, when neither the path
            // nor the method matched; a 404 a route of the application throws passes through.
            let refusal = Self.refusal(for: request, servesMetrics: !server.configuration.servesMetricsSeparately)
            var response = refusal.response()
            if refusal.status == .methodNotAllowed { response.headers[.allow] = "GET, HEAD" }
            server.record(request, route: .unmatched, response: response, since: start, tier: nil, reason: refusal.reason)
            return response
        }
    }

    /// `405` for a method other than GET, `404` for a path the server does not serve.
    static func refusal(for request: Request, servesMetrics: Bool = true) -> ImageServerError {
        let path = request.uri.path.count > 200 ? request.uri.path.prefix(200) + "…" : request.uri.path
        guard request.method == .get || request.method == .head else {
            return ImageServerError(.methodNotAllowed, "\(request.method) is not answered: the server answers GET and HEAD requests only")
        }
        let others = servesMetrics ? "/health and /metrics are the other paths" : "/health is the other path (/metrics is on the metrics port)"
        return ImageServerError(.notFound, "nothing is served at \(path): images are at /SIGNATURE/FORMAT/SPEC/SOURCE, and \(others)")
    }
}
