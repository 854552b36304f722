import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Kingfisher
import KingfisherSynchronization

/// Follows an origin's redirects only to places the server may fetch: each hop's URL must be
/// http(s), in the allow-list, and resolve to an address the address rules allow.
///
/// A refused hop stops the download; ``refusal(for:)`` then gives the answer that names it.
final class RedirectVetting: ImageDownloadRedirectHandler {
    let allowedSources: SourceAllowList
    let addressGuard: AddressGuard
    /// Refusals by the URL of the hop refused, kept until the failed download asks for them.
    private let refusals = Mutex<[URL: ImageServerError]>([:])

    init(allowedSources: SourceAllowList, addressGuard: AddressGuard) {
        self.allowedSources = allowedSources
        self.addressGuard = addressGuard
    }

    func handleHTTPRedirection(for task: SessionDataTask, response: HTTPURLResponse, newRequest: URLRequest) async -> URLRequest? {
        guard let url = newRequest.url else { return nil }
        let origin = task.originalURL
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            note(ImageServerError(.forbidden, "the origin redirected to '\(url.absoluteString.prefix(200))', which is not an http(s) URL"), for: origin)
            return nil
        }
        guard allowedSources.allows(url) else {
            note(ImageServerError(.forbidden, "the origin redirected to host '\(host)', which is not in the allow-list (\(allowedSources.refusalHint))"), for: origin)
            return nil
        }
        do {
            try await addressGuard.check(host: host)
        } catch let error as ImageServerError {
            note(ImageServerError(error.status, "the origin redirected: \(error.reason)"), for: origin)
            return nil
        } catch {
            note(ImageServerError(.badGateway, "the origin redirected to '\(host)', which could not be checked: \(error)"), for: origin)
            return nil
        }
        return newRequest
    }

    /// The refusal of a redirect that made the download of `source` fail, if one did (taken once).
    func refusal(for source: URL) -> ImageServerError? {
        refusals.withLock { $0.removeValue(forKey: source) }
    }

    private func note(_ refusal: ImageServerError, for source: URL) {
        refusals.withLock { $0[source] = refusal }
    }
}
