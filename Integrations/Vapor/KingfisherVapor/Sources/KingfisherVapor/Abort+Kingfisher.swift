import Foundation
import Kingfisher
import Vapor

extension Abort {
    /// The answer for a failed retrieval: 404 when the origin has no such image (it answered 404
    /// or 410), 413 over the size limit, 422 when the source is not an image that decodes, 504
    /// when the origin stalled or timed out, 502 for any other origin failure, 503 for a
    /// cancelled retrieval.
    ///
    /// An `Abort` passes through unchanged; any other error is a 500. The reason names the
    /// source and the failure, never the server's file paths.
    public init(kingfisher error: any Error, source: URL) {
        if let abort = error as? Abort {
            self = abort
            return
        }
        if error is CancellationError {
            self.init(.serviceUnavailable, reason: "the request was cancelled")
            return
        }
        guard let error = error as? KingfisherError else {
            self.init(.internalServerError, reason: "the image could not be produced")
            return
        }
        switch error {
        case .responseError(let reason):
            self.init(response: reason, source: source)
        case .processorError(let reason):
            self.init(processor: reason)
        case .requestError(.taskCancelled), .requestError(.asyncTaskContextCancelled):
            self.init(.serviceUnavailable, reason: "the request was cancelled")
        case .requestError:
            self.init(.badRequest, reason: "the source cannot be requested: \(error.localizedDescription)")
        case .cacheError, .imageSettingError:
            self.init(.internalServerError, reason: "the image could not be produced")
        }
    }

    private init(response reason: KingfisherError.ResponseErrorReason, source: URL) {
        switch reason {
        case .invalidHTTPStatusCode(let response):
            let code = response.statusCode
            if code == 404 || code == 410 {
                self.init(.notFound, reason: "the origin has no image at \(source.absoluteString) (it answered \(code))")
            } else {
                self.init(.badGateway, reason: "the origin answered \(code) for \(source.absoluteString)")
            }
        case .responseTooLarge(_, let limit, let declared, let received):
            let size = declared.map { "declares \($0) bytes" } ?? "sent more than \(received) bytes"
            self.init(.payloadTooLarge, reason: "the source \(size), over the limit of \(limit) bytes")
        case .downloadTimedOut(_, let timeout):
            self.init(.gatewayTimeout, reason: "the origin sent nothing for \(String(format: "%g", timeout)) s")
        case .tooManyRedirects:
            self.init(.badGateway, reason: "the origin redirected too many times")
        case .responseIncomplete(_, let expected, let received):
            self.init(.badGateway, reason: "the origin closed the connection after \(received) of \(expected) bytes")
        case .URLSessionError(let error):
            if let failure = NetworkFailure(error) {
                self.init(failure.timedOut ? .gatewayTimeout : .badGateway, reason: failure.description(for: source))
            } else {
                self.init(.badGateway, reason: "the origin could not be reached")
            }
        case .invalidURLResponse, .dataModifyingFailed, .noURLResponse, .cancelledByDelegate, .notModified:
            self.init(.badGateway, reason: "the origin's response could not be used")
        }
    }

    private init(processor reason: KingfisherError.ProcessorErrorReason) {
        switch reason {
        case .imageLimitExceeded(let format, let violation):
            self.init(.unprocessableEntity, reason: "the \(format) source is over a limit: \(violation)")
        case .emptyImageData:
            self.init(.unprocessableEntity, reason: "the origin sent no image bytes")
        case .unknownImageFormat:
            self.init(.unprocessableEntity, reason: "the source is not an image in a format the server decodes")
        case .decodingFailed(let format, let description):
            self.init(.unprocessableEntity, reason: "the \(format) source could not be decoded: \(description)")
        case .processingFailed(let processor, _):
            self.init(.unprocessableEntity, reason: "the processor \(processor.identifier) could not process the source")
        case .encodingFailed(let format, _):
            self.init(.internalServerError, reason: "encoding \(format) failed")
        }
    }
}
