import Foundation
import NIOCore

/// Responses that break HTTP or TCP on purpose, for the downloader's fault tests (issue 19).
extension TestResponse {
    /// `200 OK` with `Content-Length: body.count`, of which only the first `bytes` are sent before
    /// the server resets the connection (`SO_LINGER` 0, so the client reads `ECONNRESET`, not an
    /// orderly end of stream). On HTTP/2 the stream is reset.
    public static func resetMidBody(_ body: Data, after bytes: Int) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .resetMidBody(bytes: min(max(0, bytes), body.count)))
    }

    /// `200 OK` with `Content-Length: body.count`, then `body` and right behind it, in the same
    /// write, the `trailing` bytes the length does not count. The connection stays open (keep-alive),
    /// so a client that reads past the declared length, or reuses the connection without noticing
    /// the stray bytes, gets them as the start of its next response.
    public static func overlongBody(_ body: Data, trailing: Data) -> TestResponse {
        TestResponse(
            statusCode: 200, body: body, headers: [("Content-Type", "application/octet-stream")],
            delivery: .overlong(trailing: ByteBuffer(bytes: trailing)))
    }

    /// `200 OK` with `Transfer-Encoding: chunked` whose body never ends: `chunkSize`-byte chunks cut
    /// from `pattern` (repeated), each written once the previous one is on the wire, until the
    /// client goes away or the server shuts down. `pattern` must not be empty.
    public static func endlessChunked(_ pattern: Data, chunkSize: Int) -> TestResponse {
        precondition(!pattern.isEmpty, "an endless body needs bytes to repeat")
        var repeated = Data()
        let size = max(1, chunkSize)
        while repeated.count < size { repeated.append(pattern) }
        return TestResponse(
            statusCode: 200, body: repeated.prefix(size), headers: [("Content-Type", "application/octet-stream")],
            delivery: .endlessChunked(chunkSize: size))
    }
}
