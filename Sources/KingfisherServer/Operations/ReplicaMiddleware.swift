import HTTPTypes
import Hummingbird
import NIOCore

/// The request context of `kf serve`'s application: Hummingbird's basic context and the TCP peer's address.
public struct ServeRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's storage of the request's logger, allocator and parameters.
    public var coreContext: CoreRequestContextStorage
    /// The address of the connection's other end; `nil` when the channel has none.
    public let remoteAddress: SocketAddress?

    /// The context of a request on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}

/// The client address of the request being answered, set by ``ReplicaMiddleware`` for the request log.
enum RequestClient {
    /// The address the log line names as `client`; `nil` outside the middleware.
    @TaskLocal static var address: String?
}

/// What a replica behind a load balancer adds to every response: `X-Kf-Replica` with the
/// instance name, and `Connection: close` while draining (so clients reconnect, through the
/// balancer, to another replica); it also resolves the client's address for the request log.
///
/// An error thrown below it becomes its response here, so even those carry the header.
struct ReplicaMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The server whose instance name, drain and trusted proxies apply.
    let server: ImageServer

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let peer = (context as? any RemoteAddressRequestContext)?.remoteAddress.flatMap(Self.bytes(of:))
        let client = server.clientAddress.resolve(peer: peer, headers: request.headers)
        var response: Response
        do {
            response = try await RequestClient.$address.withValue(client) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        if let field = server.replicaField { response.headers[field.name] = field.value }
        if server.isDraining { response.headers[.connection] = "close" }
        return response
    }

    /// The 4 or 16 bytes of an IP socket address; `nil` for a Unix socket.
    static func bytes(of address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let address):
            withUnsafeBytes(of: address.address.sin_addr) { Array($0) }
        case .v6(let address):
            withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
        case .unixDomainSocket:
            nil
        }
    }
}

extension ImageServer {
    /// A middleware for a replica behind a load balancer: adds `X-Kf-Replica` (when
    /// ``ImageServerConfiguration/instanceName`` is set) to every response, `Connection: close`
    /// while draining, and names the client in each request line, read from `Forwarded` or
    /// `X-Forwarded-For` only when the peer is one of ``ImageServerConfiguration/trustedProxies``.
    ///
    /// Add it first, before ``unmatchedRequestMiddleware()`` (as ``makeApplication(host:port:onServerRunning:)``
    /// does). The peer's address is known when the context conforms to `RemoteAddressRequestContext`
    /// (``ServeRequestContext`` does); otherwise no client is logged.
    public func replicaMiddleware<Context: RequestContext>() -> some RouterMiddleware<Context> {
        ReplicaMiddleware<Context>(server: self)
    }
}
