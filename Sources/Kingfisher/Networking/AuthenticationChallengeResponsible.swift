import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers the authentication challenges of an ``ImageDownloader``'s transfers: whether to trust
/// a server's TLS certificate, and which credential to send to a server that asks for one.
///
/// Set it as ``ImageDownloader/authenticationChallengeResponder``; the downloader itself is the
/// responder by default. Return `.useCredential` to accept (with the credential for HTTP
/// authentication), `.cancelAuthenticationChallenge` to fail the download, and
/// `.performDefaultHandling` (or `.rejectProtectionSpace`) to let the downloader decide as it
/// would without a responder.
///
/// Linux differences from Kingfisher: the protocol is `Sendable`, as the downloader calls it from
/// its transfer tasks. The transport is AsyncHTTPClient, so the challenges are the downloader's own:
/// - Server trust (``downloader(_:didReceive:)``) is asked before each HTTPS request, with a
///   protection space holding the host, the port, `https` and the authentication method
///   `"NSURLAuthenticationMethodServerTrust"` (the value of the Darwin constant, which
///   FoundationNetworking does not offer). There is no `serverTrust` object to inspect (no
///   Security framework): `.useCredential` accepts whatever certificate the server presents (the
///   credential is not looked at), and the default handling verifies it against the system's
///   roots, ``ImageDownloader/addTrustedRootCertificates(pem:)`` and
///   ``ImageDownloader/trustedHosts``.
/// - HTTP authentication (``downloader(_:task:didReceive:)``) is asked when a response is a 401
///   with `WWW-Authenticate: Basic realm=…`. `.useCredential` with a user and password sends the
///   request once more with them; a second 401, or any other answer, fails the download with
///   the 401 status.
public protocol AuthenticationChallengeResponsible: AnyObject, Sendable {
    /// Decides on a challenge about the connection, i.e. whether to trust the server's TLS
    /// certificate.
    ///
    /// - Returns: What to do, and the credential to use for `.useCredential`.
    func downloader(
        _ downloader: ImageDownloader,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?)

    /// Decides on a challenge about one request, i.e. an HTTP authentication request from the server.
    ///
    /// - Parameter task: The transfer's task (see ``SessionDataTask/task``).
    /// - Returns: What to do, and the credential to use for `.useCredential`.
    func downloader(
        _ downloader: ImageDownloader,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?)
}

extension AuthenticationChallengeResponsible {
    /// Trusts the certificate of a host in ``ImageDownloader/trustedHosts``; leaves every other
    /// challenge to the default handling.
    public func downloader(
        _ downloader: ImageDownloader,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        if space.authenticationMethod == ServerTrustChallenge.authenticationMethod,
           let trusted = downloader.trustedHosts, trusted.contains(space.host) {
            return (.useCredential, nil)
        }
        return (.performDefaultHandling, nil)
    }

    /// Leaves the challenge to the default handling (which sends no credential).
    public func downloader(
        _ downloader: ImageDownloader,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        (.performDefaultHandling, nil)
    }
}

extension ImageDownloader: AuthenticationChallengeResponsible {}

/// What the downloader's challenges are made of.
enum ServerTrustChallenge {
    /// The authentication method of a server-trust protection space (the Darwin constant's value).
    static let authenticationMethod = "NSURLAuthenticationMethodServerTrust"

    /// The challenge for the TLS certificate of `host:port`.
    static func challenge(host: String, port: Int) -> URLAuthenticationChallenge {
        let space = URLProtectionSpace(
            host: host, port: port, protocol: "https", realm: nil, authenticationMethod: authenticationMethod)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
            failureResponse: nil, error: nil, sender: ChallengeSender())
    }

    /// The challenge of a 401 `response` to a request for `url` asking for Basic authentication in `realm`.
    static func basicChallenge(url: URL, realm: String?, response: HTTPURLResponse) -> URLAuthenticationChallenge {
        let scheme = url.scheme?.lowercased() ?? "http"
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let space = URLProtectionSpace(
            host: url.host ?? "", port: port, protocol: scheme, realm: realm,
            authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
            failureResponse: response, error: nil, sender: ChallengeSender())
    }

    /// The realm of a `WWW-Authenticate` value asking for Basic authentication; `.some(nil)` when
    /// it names none, `nil` when the value asks for another scheme.
    static func basicRealm(in header: String) -> String?? {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("basic") else { return nil }
        guard let range = trimmed.range(of: "realm=", options: .caseInsensitive) else { return .some(nil) }
        var value = trimmed[range.upperBound...]
        if value.hasPrefix("\"") {
            value = value.dropFirst()
            return .some(String(value.prefix { $0 != "\"" }))
        }
        return .some(String(value.prefix { $0 != "," && $0 != " " }))
    }
}

/// The sender FoundationNetworking's challenge needs; the answer comes back as the responder's
/// return value, so every call here is ignored.
private final class ChallengeSender: NSObject, URLAuthenticationChallengeSender, Sendable {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
