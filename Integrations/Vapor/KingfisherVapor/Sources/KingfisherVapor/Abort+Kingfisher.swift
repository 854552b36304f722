import Foundation
import Kingfisher
import KingfisherServer
import Vapor

extension Abort {
    /// The answer for a failed retrieval of `source`, with the status and reason `kf serve`
    /// answers (``KingfisherServer/ImageServerError/init(mapping:source:)``): 404 when the origin
    /// has no such image (it answered 404 or 410), 413 over the size limit, 422 when the source is
    /// not an image that decodes, 504 when the origin stalled or timed out, 502 for any other
    /// origin failure, 503 for a cancelled retrieval.
    ///
    /// An `Abort` passes through unchanged, and so does the status and reason of an
    /// ``KingfisherServer/ImageServerError``; any other error is a 500.
    public init(kingfisher error: any Error, source: URL) {
        if let abort = error as? Abort {
            self = abort
            return
        }
        let failure = ImageServerError(mapping: error, source: source)
        var headers = HTTPHeaders()
        if let retryAfter = failure.retryAfter { headers.add(name: .retryAfter, value: String(retryAfter)) }
        self.init(
            HTTPResponseStatus(statusCode: Int(failure.status.code), reasonPhrase: failure.status.reasonPhrase),
            headers: headers, reason: failure.reason)
    }
}
