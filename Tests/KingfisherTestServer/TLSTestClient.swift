import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A minimal NIO HTTPS client for checking the TLS ``TestHTTPServer``: one `GET` per call over a
/// fresh connection that trusts only the given certificate.
public enum TLSTestClient {
    /// A response as the client received it.
    public struct Response: Sendable {
        /// The status code.
        public let status: Int
        /// Every response header in order.
        public let headers: [(String, String)]
        /// The whole body.
        public let body: Data
        /// The protocol spoken: `"HTTP/1.1"` or `"HTTP/2"`.
        public let httpVersion: String
    }

    /// Fetches `path` from `127.0.0.1:port` over TLS, verifying the server as `serverName` against
    /// `trustedPEM` only.
    ///
    /// With `http2` the client offers only `h2` by ALPN and sends the request on an HTTP/2 stream;
    /// otherwise it offers only `http/1.1`.
    /// - Throws: A TLS verification error when the server's certificate is not the trusted one, or
    ///   any connection error.
    public static func get(
        port: Int, path: String, trustedPEM: String, serverName: String = "localhost", http2: Bool = false
    ) async throws -> Response {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(trustedPEM.utf8)))
        configuration.applicationProtocols = http2 ? ["h2"] : ["http/1.1"]
        let sslContext = try NIOSSLContext(configuration: configuration)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let response = try await exchange(
                group: group, port: port, path: path, sslContext: sslContext, serverName: serverName, http2: http2)
            try await group.shutdownGracefully()
            return response
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private static func exchange(
        group: MultiThreadedEventLoopGroup, port: Int, path: String, sslContext: NIOSSLContext, serverName: String,
        http2: Bool
    ) async throws -> Response {
        let loop = group.next()
        let promise = loop.makePromise(of: Response.self)
        do {
            return try await exchange(
                loop: loop, promise: promise, port: port, path: path, sslContext: sslContext, serverName: serverName,
                http2: http2)
        } catch {
            // Complete the promise whatever happened: NIO traps on a promise left pending.
            promise.fail(error)
            throw error
        }
    }

    private static func exchange(
        loop: any EventLoop, promise: EventLoopPromise<Response>, port: Int, path: String, sslContext: NIOSSLContext,
        serverName: String, http2: Bool
    ) async throws -> Response {
        // An address can't be sent as SNI; without a host name NIOSSL checks the peer's address instead.
        let isAddress = serverName.allSatisfy { $0.isNumber || $0 == "." || $0 == ":" }
        let hostname = isAddress ? nil : serverName
        let request = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: path, headers: ["Host": "\(serverName):\(port)"])
        // The whole pipeline, HTTP/2 included, is in place before the connection goes live: bytes
        // the server sends right after the handshake (its SETTINGS) must not reach an unfinished
        // pipeline and be dropped, which would leave the frame decoder waiting forever.
        let multiplexer = loop.makePromise(of: NIOHTTP2Handler.StreamMultiplexer.self)
        let bootstrap = ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: hostname))
                    if http2 {
                        multiplexer.succeed(try pipeline.configureHTTP2Pipeline(
                            mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
                        ) { $0.eventLoop.makeSucceededVoidFuture() })
                    } else {
                        multiplexer.fail(ChannelError.inappropriateOperationForState)
                        try pipeline.addHTTPClientHandlers()
                        try pipeline.addHandler(ResponseCollector(promise: promise))
                    }
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: "127.0.0.1", port: port).get()
        } catch {
            multiplexer.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }

        if http2 {
            let stream = try await multiplexer.futureResult.flatMap { multiplexer in
                multiplexer.createStreamChannel { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(
                            HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https))
                        try stream.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                    }
                }
            }.get()
            send(request, on: stream)
        } else {
            send(request, on: channel)
        }
        return try await promise.futureResult.get()
    }

    private static func send(_ request: HTTPRequestHead, on channel: any Channel) {
        channel.write(HTTPClientRequestPart.head(request), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }
}

/// Gathers one response and completes `promise` with it, or with the error that prevented it.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<TLSTestClient.Response>
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()
    private var done = false

    init(promise: EventLoopPromise<TLSTestClient.Response>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var part):
            body.writeBuffer(&part)
        case .end:
            guard let head, !done else { return }
            done = true
            let version = head.version.major == 2 ? "HTTP/2" : "HTTP/\(head.version.major).\(head.version.minor)"
            promise.succeed(TLSTestClient.Response(
                status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) },
                body: Data(body.readableBytesView), httpVersion: version))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(ChannelError.eof)
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        guard !done else { return }
        done = true
        promise.fail(error)
    }
}
