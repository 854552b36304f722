import Hummingbird

/// A URL grammar served below a path prefix, or at the root of the server.
public struct GrammarMount: Sendable {
    /// `/` for the root, else the prefix with a leading and no trailing `/` (`/thumbor`).
    public let prefix: String
    /// The grammar answering the paths below ``prefix``.
    public let grammar: any RenditionGrammar

    /// Paths a root mount leaves to the server's other routes.
    static let reservedPaths: Set<String> = ["/", "/health", "/metrics", "/healthcheck", "/demo/sign"]

    /// `grammar` at `prefix` (`/`, `thumbor`, `/thumbor/` all work).
    public init(prefix: String, grammar: any RenditionGrammar) {
        let trimmed = prefix.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
        self.prefix = "/" + trimmed
        self.grammar = grammar
    }

    /// Whether the grammar takes the root.
    var isRoot: Bool { prefix == "/" }

    /// The part of `path` (raw, as received) below the prefix, starting with `/`, or `nil` when
    /// `path` is not this mount's.
    func rawPath(below path: Substring) -> Substring? {
        if isRoot {
            return Self.reservedPaths.contains(String(path)) ? nil : path
        }
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        return rest.first == "/" ? rest : nil
    }
}

/// Hands the requests below each mount to its grammar before the router sees them.
struct GrammarMountMiddleware<Context: RequestContext>: RouterMiddleware {
    let server: ImageServer

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .get || request.method == .head else { return try await next(request, context) }
        let path = Substring(request.uri.path)
        for mount in server.configuration.mounts {
            if let rawPath = mount.rawPath(below: path) {
                return await server.answer(request, route: .image(mount.grammar, rawPath: rawPath))
            }
        }
        return try await next(request, context)
    }
}
