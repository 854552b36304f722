import Foundation
import HTTPTypes
import NIOCore

/// A refused or failed image request: the status to answer and a one-line reason for the body and the log.
public struct ImageServerError: Error, Sendable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// One line saying why.
    public var reason: String
    /// Seconds for a `Retry-After` header, when the client should come back later.
    public var retryAfter: Int?

    /// An error answered with `status` and `reason`.
    public init(_ status: HTTPResponse.Status, _ reason: String, retryAfter: Int? = nil) {
        self.status = status
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// `STATUS reason`.
    public var description: String { "\(status.code) \(reason)" }

    /// The plain-text answer: the reason on one line.
    func response() -> ImageServerResponse {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        let line = reason.replacingOccurrences(of: "\n", with: " ") + "\n"
        return ImageServerResponse(status: status, headerFields: headers, body: ByteBuffer(string: line))
    }
}
