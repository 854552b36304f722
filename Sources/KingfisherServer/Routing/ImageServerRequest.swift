import HTTPTypes

/// A request as the image server reads it, whichever HTTP framework received it.
///
/// ``ImageServer/response(to:)`` answers it. Hummingbird's routes (``ImageServer/addRoutes(to:)``)
/// and the Vapor adapter's mount both turn their framework's request into one of these, so every
/// framework gets the same routing, signature checks and caching headers.
public struct ImageServerRequest: Sendable {
    /// The request's method; the server answers `GET` and `HEAD`.
    public var method: HTTPRequest.Method
    /// The path below the point where the server is mounted, starting with `/`, still
    /// percent-encoded as the client sent it (signatures cover those bytes), without the query.
    public var path: String
    /// The query, percent-encoded, without the `?`; `nil` when the URL has none.
    public var query: String?
    /// The request's header fields (`Accept`, `If-None-Match`, `If-Modified-Since`, and the
    /// forwarding headers read for the log when the peer is a trusted proxy).
    public var headerFields: HTTPFields
    /// The IP address of the connection's other end as text (`127.0.0.1`, `::1`), for the
    /// request log; `nil` when unknown (a Unix socket, an in-process test).
    public var peerAddress: String?

    /// A request for `path` (below the mount point, percent-encoded) with `method` and `headerFields`.
    public init(
        method: HTTPRequest.Method, path: String, query: String? = nil, headerFields: HTTPFields = [:], peerAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headerFields = headerFields
        self.peerAddress = peerAddress
    }
}
