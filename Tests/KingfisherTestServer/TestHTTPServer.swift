import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A loopback HTTP server for networking tests, with per-path canned responses.
///
/// It listens on 127.0.0.1 on a free port with its own single-threaded event loop group, speaks
/// HTTP/1.1 with keep-alive and serves any number of concurrent connections. Route paths before
/// the requests arrive; unrouted paths answer `404`. Every request is logged when its headers are
/// complete. Call ``shutdown()`` when done: it is not done for you.
///
/// Started with `tls: true` it serves HTTPS with a fresh self-signed certificate
/// (``certificatePEM``) and negotiates HTTP/2 or HTTP/1.1 by ALPN; each stream of an HTTP/2
/// connection is answered like an HTTP/1.1 request, without connection-level headers, and the
/// responses that "close the connection" reset their stream instead.
public final class TestHTTPServer: Sendable {
    /// The port the server listens on.
    public let port: Int

    /// The PEM of the self-signed certificate a TLS server presents (valid for `localhost` and
    /// `127.0.0.1`); trust it as a root to connect. Empty for a plain-HTTP server.
    public let certificatePEM: String

    private let isTLS: Bool
    private let group: MultiThreadedEventLoopGroup
    private let listener: any Channel
    private let core: ServerCore

    private init(
        port: Int, certificatePEM: String, group: MultiThreadedEventLoopGroup, listener: any Channel,
        core: ServerCore
    ) {
        self.port = port
        self.certificatePEM = certificatePEM
        self.isTLS = !certificatePEM.isEmpty
        self.group = group
        self.listener = listener
        self.core = core
    }

    /// Starts a plain-HTTP server on 127.0.0.1 on a free port; the same as `start(tls: false)`.
    ///
    /// - Throws: When the socket cannot be bound.
    public static func start() async throws -> TestHTTPServer {
        try await start(tls: false)
    }

    /// Starts a server on 127.0.0.1 on a free port, serving HTTPS with HTTP/2 and HTTP/1.1 when
    /// `tls` is `true`, plain HTTP/1.1 otherwise.
    ///
    /// - Throws: When the certificate cannot be made or the socket cannot be bound.
    public static func start(tls: Bool) async throws -> TestHTTPServer {
        let identity = tls ? try SelfSignedIdentity.make() : nil
        let sslContext = try identity?.serverContext()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let core = ServerCore()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let registered = channel.eventLoop.makeCompletedFuture {
                    guard core.register(channel) else {
                        throw ChannelError.ioOnClosedChannel
                    }
                }
                guard let sslContext else {
                    return registered.flatMapThrowing { try Self.addHTTP1Handlers(to: channel, core: core) }
                }
                return registered.flatMapThrowing {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { channel in
                            channel.eventLoop.makeCompletedFuture { try Self.addHTTP2Handlers(to: channel, core: core) }
                        },
                        http1ChannelConfigurator: { channel in
                            channel.eventLoop.makeCompletedFuture { try Self.addHTTP1Handlers(to: channel, core: core) }
                        })
                }
            }
        do {
            let listener = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
            guard let port = listener.localAddress?.port else {
                try? await listener.close().get()
                throw ChannelError.unknownLocalAddress
            }
            return TestHTTPServer(
                port: port, certificatePEM: identity?.certificatePEM ?? "", group: group, listener: listener,
                core: core)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// HTTP/1.1 on `channel` (plain, or inside TLS after ALPN chose it). Call on its event loop.
    private static func addHTTP1Handlers(to channel: any Channel, core: ServerCore) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.configureHTTPServerPipeline(withEncoderConfiguration: encoderConfiguration)
        try pipeline.addHandler(TestHTTPHandler(core: core, isHTTP2: false))
    }

    /// HTTP/2 on `channel`, each stream translated to HTTP/1-style parts for the same handler.
    /// Call on its event loop.
    private static func addHTTP2Handlers(to channel: any Channel, core: ServerCore) throws {
        _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                try stream.pipeline.syncOperations.addHandler(TestHTTPHandler(core: core, isHTTP2: true))
            }
        }
    }

    /// The responses set their own framing: close-delimited bodies must not be turned into chunks.
    private static var encoderConfiguration: HTTPResponseEncoder.Configuration {
        var configuration = HTTPResponseEncoder.Configuration()
        configuration.automaticallySetFramingHeaders = false
        return configuration
    }

    /// The server's root without a trailing slash: `http://127.0.0.1:<port>`, or
    /// `https://localhost:<port>` for a TLS server (the name its certificate is for).
    public var baseURL: URL {
        // A literal scheme and host with an integer port always parse.
        URL(string: isTLS ? "https://localhost:\(port)" : "http://127.0.0.1:\(port)")!
    }

    /// `baseURL` followed by `path`, which should start with `/` and may carry a query string.
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path) ?? baseURL.appendingPathComponent(path)
    }

    /// Answers every request on `path` with `response`, replacing any earlier route for it.
    ///
    /// `path` is compared exactly with the request's path; the query string is ignored.
    public func route(_ path: String, _ response: TestResponse) {
        core.setRoute(path, [response])
    }

    /// Answers requests on `path` with `responses` in order, repeating the last one once they run
    /// out. Replaces any earlier route for `path` and starts the sequence over; an empty array
    /// makes the path answer `404`.
    public func route(_ path: String, _ responses: [TestResponse]) {
        core.setRoute(path, responses)
    }

    /// The number of requests whose headers arrived for `path` (query ignored), whatever they were
    /// answered.
    public func requestCount(for path: String) -> Int {
        core.requests(for: path).count
    }

    /// The requests received for `path` (query ignored), oldest first.
    public func requests(for path: String) -> [RecordedRequest] {
        core.requests(for: path)
    }

    /// Returns once at least `count` requests have arrived for `path`.
    ///
    /// Event-driven, no polling. Returns early when the calling task is cancelled, so run it under
    /// a watchdog.
    public func waitUntilRequestCount(for path: String, reaches count: Int) async {
        await core.waitUntilRequestCount(for: path, reaches: count)
    }

    /// The number of TCP connections accepted since start.
    public var acceptedConnectionCount: Int {
        core.acceptedConnectionCount
    }

    /// The number of TCP connections open right now.
    public var openConnectionCount: Int {
        core.openConnectionCount
    }

    /// Stops listening, closes every open connection (held and never-answered responses included)
    /// and stops the event loop group.
    ///
    /// Idempotent: a second call returns at once. Responses released by a gate after shutdown are
    /// dropped.
    public func shutdown() async throws {
        guard let connections = core.beginShutdown() else { return }
        try? await listener.close().get()
        for connection in connections {
            try? await connection.close().get()
        }
        try await group.shutdownGracefully()
    }
}
