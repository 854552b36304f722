import Foundation
import Kingfisher
import Vapor

extension Request {
    /// Kingfisher for this request, backed by the application's manager
    /// (``Vapor/Application/kingfisher``).
    public var kingfisher: Kingfisher { Kingfisher(request: self) }

    /// Retrieval and responses for one request.
    public struct Kingfisher: Sendable {
        /// The request this works for.
        public let request: Request

        /// Retrieves the image at `url` through the application's cache and downloader, as an
        /// `Abort` with the status of the stage that failed when it cannot.
        ///
        /// Cancelling the calling task cancels this request's share of the download. Vapor 4 does
        /// not cancel a route handler's task when the client disconnects: the handler runs to its
        /// end and its response is dropped. Work that must stop with the client has to be
        /// cancelled by the caller (for example by a task group with a deadline); other requests
        /// for the same image keep the download they share.
        ///
        /// - Throws: `Abort` (see ``Vapor/Abort/init(kingfisher:source:)``): 404, 413, 422, 502,
        ///   504, or 503 when the task was cancelled.
        public func retrieveImage(
            with url: URL,
            options: KingfisherOptionsInfo? = nil
        ) async throws -> RetrieveImageResult {
            try await retrieveImage(with: .network(url), options: options)
        }

        /// Retrieves the image of `source`; the same as the URL form for any ``Source``.
        public func retrieveImage(
            with source: Source,
            options: KingfisherOptionsInfo? = nil
        ) async throws -> RetrieveImageResult {
            let manager = request.application.kingfisher.manager
            do {
                return try await manager.retrieveImage(with: source, options: options)
            } catch {
                let abort = Abort(kingfisher: error, source: source.url ?? URL(fileURLWithPath: "/"))
                request.logger.debug("image retrieval failed: \(abort.status.code) \(abort.reason)")
                throw abort
            }
        }
    }
}
