import HTTPTypes
import NIOCore

/// The image server's answer to an ``ImageServerRequest``, for any HTTP framework to send as it is.
public struct ImageServerResponse: Sendable {
    /// The status: `200`, `304`, or the refusal's.
    public var status: HTTPResponse.Status
    /// Every header field to send; for a `HEAD` request `Content-Length` is the length a `GET`
    /// would receive, though ``body`` is empty.
    public var headerFields: HTTPFields
    /// The bytes to send: the image, a refusal's one-line reason, the health or metrics text;
    /// empty for `304` and for `HEAD`.
    public var body: ByteBuffer

    /// An answer with `status`, `headerFields` and `body`.
    public init(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: ByteBuffer = ByteBuffer()) {
        self.status = status
        self.headerFields = headerFields
        self.body = body
    }
}
