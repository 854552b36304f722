import Foundation
import Kingfisher

extension ImageServerError {
    /// The answer for a failed retrieval of `source`: the status of the stage that failed and a
    /// one-line reason, the mapping `kf serve` answers with and the Vapor adapter's `Abort` uses.
    ///
    /// An ``ImageServerError`` passes through. A ``KingfisherError`` becomes 404 when the origin
    /// has no such image (it answered 404 or 410), 502 for any other origin failure, 504 when the
    /// origin sent nothing in time, 413 for a source over the size limit, 422 for a source that is
    /// over a decoding limit or does not decode, 400 for a request that cannot be made, and 503
    /// when the retrieval was cancelled (as is a `CancellationError`); any other error is a 500.
    public init(mapping error: any Error, source: URL) {
        if let error = error as? ImageServerError {
            self = error
            return
        }
        guard let error = error as? KingfisherError else {
            if error is CancellationError {
                self.init(.serviceUnavailable, "the request was cancelled")
            } else {
                self.init(.internalServerError, "the image could not be produced: \(error)")
            }
            return
        }
        switch error {
        case .responseError(let reason):
            self.init(response: reason, source: source)
        case .processorError(let reason):
            self.init(processor: reason)
        case .requestError(.taskCancelled), .requestError(.asyncTaskContextCancelled):
            self.init(.serviceUnavailable, "the request was cancelled")
        case .requestError:
            self.init(.badRequest, "the source cannot be requested: \(error.localizedDescription)")
        case .cacheError, .imageSettingError:
            self.init(.internalServerError, "the image could not be produced: \(error.localizedDescription)")
        }
    }

    private init(response reason: KingfisherError.ResponseErrorReason, source: URL) {
        switch reason {
        case .invalidHTTPStatusCode(let response):
            let code = response.statusCode
            if code == 404 || code == 410 {
                self.init(.notFound, "the origin has no image at \(source.absoluteString) (it answered \(code))")
            } else if (300..<400).contains(code) {
                self.init(.badGateway, "the origin answered \(code); redirects are not followed")
            } else {
                self.init(.badGateway, "the origin answered \(code) for \(source.absoluteString)")
            }
        case .responseTooLarge(_, let limit, let declared, let received):
            let size = declared.map { "declares \($0) bytes" } ?? "sent more than \(received) bytes"
            self.init(.contentTooLarge, "the source \(size), over the limit of \(limit) bytes")
        case .downloadTimedOut(_, let timeout):
            self.init(.gatewayTimeout, "the origin sent nothing for \(RenditionPipeline.seconds(timeout))")
        case .tooManyRedirects:
            self.init(.badGateway, "the origin redirected; redirects are not followed")
        case .responseIncomplete(_, let expected, let received):
            self.init(.badGateway, "the origin closed the connection after \(received) of \(expected) bytes")
        case .URLSessionError(let error):
            if let failure = NetworkFailure(error) {
                // One plain line naming the origin's host and port, as `kf fetch` words it.
                self.init(failure.timedOut ? .gatewayTimeout : .badGateway, failure.description(for: source))
            } else {
                self.init(.badGateway, "the origin could not be reached: \(error)")
            }
        case .invalidURLResponse, .dataModifyingFailed, .noURLResponse, .cancelledByDelegate, .notModified:
            self.init(.badGateway, "the origin's response could not be used")
        }
    }

    private init(processor reason: KingfisherError.ProcessorErrorReason) {
        switch reason {
        case .imageLimitExceeded(let format, let violation):
            self.init(.unprocessableContent, "the \(format) source is over a limit: \(violation)")
        case .emptyImageData:
            self.init(.unprocessableContent, "the origin sent no image bytes")
        case .unknownImageFormat:
            self.init(.unprocessableContent, "the source is not an image in a format the server decodes")
        case .decodingFailed(let format, let description):
            self.init(.unprocessableContent, "the \(format) source could not be decoded: \(description)")
        case .processingFailed(let processor, _) where processor.identifier.isEmpty:
            self.init(.unprocessableContent, "the source is not an image the server decodes")
        case .processingFailed(let processor, _):
            self.init(.unprocessableContent, "the processor \(processor.identifier) could not process the source")
        case .encodingFailed(let format, let description):
            self.init(.internalServerError, "encoding \(format) failed: \(description)")
        }
    }
}
