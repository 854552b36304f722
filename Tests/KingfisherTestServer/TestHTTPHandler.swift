import NIOCore
import NIOHTTP1

/// Answers each request on one HTTP/1 connection (or one HTTP/2 stream, behind
/// `HTTP2FramePayloadToHTTP1ServerCodec`) with the response routed for its path.
///
/// Lives on its channel's event loop. Requests on a connection are answered one at a time;
/// NIO's pipelining handler in front of it queues the next request until this one's `.end`.
final class TestHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let core: ServerCore
    /// `true` on an HTTP/2 stream: no connection-level headers, and "closing" resets the stream.
    let isHTTP2: Bool

    private var pending: (head: HTTPRequestHead, response: TestResponse)?
    /// Bumped per request and on teardown so a late timer or gate callback can tell it is stale.
    var exchange = 0
    var isActive = true
    private var scheduled: Scheduled<Void>?
    private var gateTicket: (gate: TestGate, ticket: Int)?

    init(core: ServerCore, isHTTP2: Bool) {
        self.core = core
        self.isHTTP2 = isHTTP2
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let version = isHTTP2 ? "HTTP/2" : "HTTP/\(head.version.major).\(head.version.minor)"
            let request = RecordedRequest(
                method: head.method.rawValue, uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) }, httpVersion: version)
            pending = (head, core.receive(request))
        case .body:
            break
        case .end:
            guard let (head, response) = pending else { return }
            pending = nil
            exchange += 1
            respond(context: context, head: head, response: response)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        tearDown()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        tearDown()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func tearDown() {
        isActive = false
        exchange += 1
        scheduled?.cancel()
        scheduled = nil
        if let (gate, ticket) = gateTicket {
            gate.release(ticket)
            gateTicket = nil
        }
    }

    // MARK: - Responding

    private func respond(context: ChannelHandlerContext, head: HTTPRequestHead, response: TestResponse) {
        let bodyAllowed = head.method != .HEAD && response.statusAllowsBody
        let keepAlive = head.isKeepAlive
        let body = response.body
        let length = response.statusAllowsBody ? body.readableBytes : nil

        switch response.delivery {
        case .never:
            break
        case .immediate:
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            if bodyAllowed { writeBody(context, body) }
            finish(context, close: !keepAlive)
        case .chunked(let size):
            writeHead(context, head, response, chunked: true, keepAlive: keepAlive)
            if bodyAllowed {
                var rest = body
                while rest.readableBytes > 0, let piece = rest.readSlice(length: min(size, rest.readableBytes)) {
                    writeBody(context, piece)
                }
            }
            finish(context, close: !keepAlive)
        case .closeDelimited:
            writeHead(context, head, response, keepAlive: false)
            if bodyAllowed { writeBody(context, body) }
            finish(context, close: true)
        case .wrongContentLength(let declared):
            writeHead(context, head, response, contentLength: declared, keepAlive: keepAlive)
            guard bodyAllowed else { return finish(context, close: true) }
            if declared > body.readableBytes {
                writeBody(context, body)
                flushThenClose(context)
            } else {
                writeBody(context, body.getSlice(at: body.readerIndex, length: declared) ?? body)
                finish(context, close: true)
            }
        case .closeMidBody(let bytes):
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            writeBody(context, body.getSlice(at: body.readerIndex, length: bytes) ?? body)
            flushThenClose(context)
        case .slow(let chunkSize, let interval):
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            context.flush()
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            trickle(context, body, chunkSize: chunkSize, interval: interval, keepAlive: keepAlive)
        case .held(let gate):
            waitFor(gate, context) { handler, context in
                handler.writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
                if bodyAllowed { handler.writeBody(context, body) }
                handler.finish(context, close: !keepAlive)
            }
        case .heldBody(let gate):
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            context.flush()
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            waitFor(gate, context) { handler, context in
                handler.writeBody(context, body)
                handler.finish(context, close: !keepAlive)
            }
        case .paced(let pieces, let gates):
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            context.flush()
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            pace(context, body, pieces: pieces[...], gates: gates[...], keepAlive: keepAlive)
        case .resetMidBody(let bytes):
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            writeBody(context, body.getSlice(at: body.readerIndex, length: bytes) ?? body)
            flushThenReset(context)
        case .overlong(let trailing):
            writeHead(context, head, response, contentLength: length, keepAlive: keepAlive)
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            var both = body
            var extra = trailing
            both.writeBuffer(&extra)
            writeBody(context, both)
            finish(context, close: !keepAlive)
        case .endlessChunked:
            writeHead(context, head, response, chunked: true, keepAlive: keepAlive)
            guard bodyAllowed else { return finish(context, close: !keepAlive) }
            stream(context, body)
        }
    }

    /// Sends the next piece of `body` once its gate opens, then the rest the same way.
    private func pace(
        _ context: ChannelHandlerContext, _ body: ByteBuffer, pieces: ArraySlice<Int>, gates: ArraySlice<TestGate>,
        keepAlive: Bool
    ) {
        guard let size = pieces.first, let gate = gates.first else { return finish(context, close: !keepAlive) }
        waitFor(gate, context) { handler, context in
            var rest = body
            if let piece = rest.readSlice(length: min(size, rest.readableBytes)) {
                handler.writeBody(context, piece)
                context.flush()
            }
            handler.pace(context, rest, pieces: pieces.dropFirst(), gates: gates.dropFirst(), keepAlive: keepAlive)
        }
    }

    /// Sends `body` in `chunkSize` pieces, the first one `interval` from now, then ends the response.
    private func trickle(
        _ context: ChannelHandlerContext, _ body: ByteBuffer, chunkSize: Int, interval: TimeAmount, keepAlive: Bool
    ) {
        let exchange = self.exchange
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            guard isActive, exchange == self.exchange else { return }
            scheduled = nil
            var rest = body
            if let piece = rest.readSlice(length: min(chunkSize, rest.readableBytes)) {
                writeBody(context, piece)
                context.flush()
            }
            if rest.readableBytes > 0 {
                trickle(context, rest, chunkSize: chunkSize, interval: interval, keepAlive: keepAlive)
            } else {
                finish(context, close: !keepAlive)
            }
        }
    }

    /// Runs `send` on this event loop once `gate` is open, unless the connection is gone by then.
    private func waitFor(
        _ gate: TestGate, _ context: ChannelHandlerContext,
        _ send: @escaping (TestHTTPHandler, ChannelHandlerContext) -> Void
    ) {
        context.flush()
        let exchange = self.exchange
        let loop = context.eventLoop
        let target = NIOLoopBound((handler: self, context: context, send: send), eventLoop: loop)
        let hold = gate.hold {
            loop.execute {
                let (handler, context, send) = target.value
                guard handler.isActive, handler.exchange == exchange else { return }
                handler.gateTicket = nil
                send(handler, context)
            }
        }
        switch hold {
        case .open:
            send(self, context)
        case .held(let ticket):
            gateTicket = (gate, ticket)
        }
    }

    // MARK: - Writing

    func writeHead(
        _ context: ChannelHandlerContext, _ request: HTTPRequestHead, _ response: TestResponse,
        contentLength: Int? = nil, chunked: Bool = false, keepAlive: Bool
    ) {
        var headers = HTTPHeaders()
        if let contentLength {
            headers.add(name: "Content-Length", value: String(contentLength))
        }
        if !isHTTP2 {
            if chunked && response.statusAllowsBody {
                headers.add(name: "Transfer-Encoding", value: "chunked")
            }
            if !keepAlive {
                headers.add(name: "Connection", value: "close")
            } else if request.version.major == 1 && request.version.minor == 0 {
                headers.add(name: "Connection", value: "keep-alive")
            }
        }
        for (name, value) in response.headers {
            headers.add(name: name, value: value)
        }
        let version = isHTTP2 ? HTTPVersion.http2 : request.version
        let status = HTTPResponseStatus(statusCode: response.statusCode)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: status, headers: headers))),
                      promise: nil)
    }

    func writeBody(_ context: ChannelHandlerContext, _ body: ByteBuffer) {
        guard body.readableBytes > 0 else { return }
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
    }

    /// Ends the response; with `close`, closes the connection once everything is on the wire.
    func finish(_ context: ChannelHandlerContext, close: Bool) {
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if close && !isHTTP2 {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Abandons the response mid-way: flushes what was written, then closes the connection
    /// (on HTTP/2, resets the stream).
    func flushThenClose(_ context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.flush()
        // A zero-byte write completes only after every earlier write has been handed to the kernel.
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))), promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
