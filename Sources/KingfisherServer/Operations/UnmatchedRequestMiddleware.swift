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
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            // Hummingbird's router throws this, and names the endpoint so, when neither the path
            // nor the method matched; a 404 a route of the application throws passes through.
            return await server.answer(request, route: .unmatched)
        }
    }
}
