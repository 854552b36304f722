import Foundation
import NIOCore

/// One canned answer the ``TestHTTPServer`` gives to a request on a route.
///
/// Every factory documents exactly which bytes go on the wire. Unless a factory says otherwise the
/// connection stays open for the next request (HTTP/1.1 keep-alive) and a `HEAD` request gets the
/// same status line and headers as a `GET` with no body. Responses are values: one instance may be
/// routed on several paths and served any number of times.
public struct TestResponse: Sendable {
    /// How the body goes out; the status, headers and body bytes live on the response itself.
    enum Delivery: Sendable {
        /// `Content-Length` framing, whole body at once.
        case immediate
        /// Headers at once, then `chunkSize`-byte pieces, each one `interval` after the previous.
        case slow(chunkSize: Int, interval: TimeAmount)
        /// Nothing at all until the gate opens, then a normal response.
        case held(TestGate)
        /// Headers at once, the body once the gate opens.
        case heldBody(TestGate)
        /// Headers at once, then the body's pieces, piece `i` once gate `i` opens.
        case paced(pieces: [Int], gates: [TestGate])
        /// Declares `declared` bytes in `Content-Length`; see ``TestResponse/wrongContentLength(_:declared:)``.
        case wrongContentLength(declared: Int)
        /// No framing header; the body ends when the server closes the connection.
        case closeDelimited
        /// `Transfer-Encoding: chunked`, one chunk per `chunkSize` bytes.
        case chunked(chunkSize: Int)
        /// Full `Content-Length`, `bytes` of the body, then the connection is closed.
        case closeMidBody(bytes: Int)
        /// The request is read and never answered.
        case never
        /// Full `Content-Length`, `bytes` of the body, then the connection is reset (TCP RST).
        case resetMidBody(bytes: Int)
        /// `Content-Length: body.count`, then the body followed by `trailing` bytes it does not count.
        case overlong(trailing: ByteBuffer)
        /// `Transfer-Encoding: chunked`, `chunkSize`-byte chunks of the body's bytes repeated forever.
        case endlessChunked(chunkSize: Int)
    }

    let statusCode: Int
    let body: ByteBuffer
    /// Headers the factory sets (content type, location), before ``withHeaders(_:)`` overrides.
    let baseHeaders: [(String, String)]
    let extraHeaders: [(String, String)]
    let delivery: Delivery

    init(statusCode: Int, body: Data, headers: [(String, String)] = [], delivery: Delivery) {
        self.statusCode = statusCode
        self.body = ByteBuffer(bytes: body)
        self.baseHeaders = headers
        self.extraHeaders = []
        self.delivery = delivery
    }

    private init(copying other: TestResponse, extraHeaders: [(String, String)]) {
        self.statusCode = other.statusCode
        self.body = other.body
        self.baseHeaders = other.baseHeaders
        self.extraHeaders = extraHeaders
        self.delivery = other.delivery
    }

    /// `200 OK` with `body`, its `Content-Length` and `Content-Type: contentType`.
    public static func ok(_ body: Data, contentType: String = "application/octet-stream") -> TestResponse {
        TestResponse(statusCode: 200, body: body, headers: [("Content-Type", contentType)], delivery: .immediate)
    }

    /// Status `code` with `body` (empty by default) and its `Content-Length`.
    ///
    /// Statuses that cannot carry a body (1xx, 204, 304) go out without `Content-Length` and
    /// without the body.
    public static func status(_ code: Int, body: Data = Data()) -> TestResponse {
        TestResponse(statusCode: code, body: body, delivery: .immediate)
    }

    /// A redirect with `Location: location` (sent verbatim, so an absolute URL or a path) and an
    /// empty body.
    public static func redirect(to location: String, status: Int = 302) -> TestResponse {
        TestResponse(statusCode: status, body: Data(), headers: [("Location", location)], delivery: .immediate)
    }

    /// `200 OK` whose headers (with `Content-Length`) go out at once and whose body trickles in.
    ///
    /// The first `chunkSize` bytes are sent `interval` seconds after the headers, every further piece
    /// another `interval` later, so the whole body takes `ceil(count / chunkSize) * interval`.
    /// A `chunkSize` below 1 counts as 1.
    public static func slow(_ body: Data, chunkSize: Int, interval: TimeInterval) -> TestResponse {
        let nanoseconds = Int64((max(0, interval) * 1_000_000_000).rounded())
        return TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .slow(chunkSize: max(1, chunkSize), interval: .nanoseconds(nanoseconds)))
    }

    /// `200 OK` held back entirely (no status line, no headers) until `gate` is opened.
    ///
    /// While waiting the response counts in ``TestGate/waitingCount``; if the client disconnects first
    /// it stops counting. Once the gate is open the response goes out like ``ok(_:contentType:)``.
    public static func held(_ body: Data, gate: TestGate) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .held(gate))
    }

    /// `200 OK` whose headers (with `Content-Length`) go out at once and whose body waits for `gate`.
    ///
    /// The response counts in ``TestGate/waitingCount`` from the moment its headers are sent until
    /// the gate opens or the client disconnects. A `HEAD` request is answered at once.
    public static func heldBody(_ body: Data, gate: TestGate) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .heldBody(gate))
    }

    /// `200 OK` whose headers (with `Content-Length`) go out at once and whose body goes out in
    /// pieces of the given sizes, each once its own gate opens (in order: piece `i + 1` waits for
    /// piece `i` too). `pieces` and `gates` have the same count; the sizes add up to the body's.
    public static func paced(_ body: Data, pieces: [Int], gates: [TestGate]) -> TestResponse {
        precondition(pieces.count == gates.count && pieces.reduce(0, +) == body.count, "pieces must cover the body, one gate each")
        return TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "image/jpeg")],
            delivery: .paced(pieces: pieces, gates: gates))
    }

    /// `200 OK` with `Content-Length: declared`, which does not match `body.count`.
    ///
    /// - `declared > body.count`: the whole body is sent, then the connection is closed, so the
    ///   client sees the stream end early.
    /// - `declared <= body.count`: exactly the first `declared` bytes are sent (a well-formed but
    ///   truncated response), then the connection is closed so no stray bytes follow.
    ///
    /// A `HEAD` request gets the headers and the connection is closed.
    public static func wrongContentLength(_ body: Data, declared: Int) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .wrongContentLength(declared: max(0, declared)))
    }

    /// `200 OK` with `Connection: close` and neither `Content-Length` nor chunking: the body ends
    /// when the server closes the connection right after sending it.
    public static func noContentLength(_ body: Data) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .closeDelimited)
    }

    /// `200 OK` with `Transfer-Encoding: chunked` (no `Content-Length`), one chunk per `chunkSize`
    /// bytes (the last may be shorter) followed by the terminating zero-length chunk.
    public static func chunked(_ body: Data, chunkSize: Int) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .chunked(chunkSize: max(1, chunkSize)))
    }

    /// `200 OK` with `Content-Length: body.count`, of which only the first `bytes` are sent before
    /// the server closes the connection.
    ///
    /// A `HEAD` request gets the headers and the connection stays open.
    public static func closeMidBody(_ body: Data, after bytes: Int) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .closeMidBody(bytes: min(max(0, bytes), body.count)))
    }

    /// Reads the request and never answers it; the connection stays open until the client leaves
    /// or the server shuts down. Meant for timeout tests.
    public static func never() -> TestResponse {
        TestResponse(statusCode: 200, body: Data(), delivery: .never)
    }

    /// This response with `headers` added.
    ///
    /// A name given here replaces every header of that name the factory set (case-insensitive), so
    /// `Content-Type` can be overridden; names may repeat to send a header several times. Framing
    /// headers (`Content-Length`, `Transfer-Encoding`, `Connection`) are the server's: setting them
    /// here produces exactly the malformed response asked for.
    public func withHeaders(_ headers: [(String, String)]) -> TestResponse {
        TestResponse(copying: self, extraHeaders: extraHeaders + headers)
    }

    /// The headers besides framing: factory headers overridden by ``withHeaders(_:)``.
    var headers: [(String, String)] {
        let overridden = Set(extraHeaders.map { $0.0.lowercased() })
        return baseHeaders.filter { !overridden.contains($0.0.lowercased()) } + extraHeaders
    }

    /// Whether this status may carry a body at all (RFC 9110: not 1xx, 204 or 304).
    var statusAllowsBody: Bool {
        !((100..<200).contains(statusCode) || statusCode == 204 || statusCode == 304)
    }
}
