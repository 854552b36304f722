import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionDataTask {
    /// The AsyncHTTPClient request for `request`: its headers, the configuration's additional
    /// headers and cookies, and the TLS trust the challenge responder decided on.
    func makeClientRequest(
        _ request: URLRequest, settings: ImageDownloader.TransferSettings, transport: TransportClient, hooks: TransferHooks?
    ) async throws -> HTTPClientRequest {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host else {
            throw KingfisherError.requestError(reason: .invalidURL(request: request))
        }
        var clientRequest = HTTPClientRequest(url: url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            clientRequest.headers.add(name: name, value: value)
        }
        for (name, value) in transport.values.additionalHeaders where !clientRequest.headers.contains(name: name) {
            clientRequest.headers.add(name: name, value: value)
        }
        if let cookie = transport.values.cookies?.header(for: request) {
            clientRequest.headers.add(name: "Cookie", value: cookie)
        }
        if let body = request.httpBody {
            clientRequest.body = .bytes(ByteBuffer(bytes: body))
        }
        if scheme == "https" {
            let port = url.port ?? 443
            let accepted = try await serverTrustAccepted(host: host, port: port, settings: settings, hooks: hooks)
            if accepted || !settings.trustRoots.isEmpty {
                var tls = TLSConfiguration.makeClientConfiguration()
                if accepted { tls.certificateVerification = .none }
                if !settings.trustRoots.isEmpty { tls.additionalTrustRoots = [.certificates(settings.trustRoots)] }
                clientRequest.tlsConfiguration = tls
            }
        }
        return clientRequest
    }

    /// Whether the certificate of `host` is accepted without verification: the challenge
    /// responder said `.useCredential`, or left it to the default handling and the host is in
    /// `trustedHosts`. Throws when the responder cancelled the challenge.
    private func serverTrustAccepted(
        host: String, port: Int, settings: ImageDownloader.TransferSettings, hooks: TransferHooks?
    ) async throws -> Bool {
        let trusted = settings.trustedHosts.contains(host)
        let responder = downloader.authenticationChallengeResponder
        // The default delegate and responder trust exactly `trustedHosts`: no challenge is made.
        if hooks == nil, responder == nil || responder === downloader { return trusted }
        let challenge = ServerTrustChallenge.challenge(host: host, port: port)
        let disposition: URLSession.AuthChallengeDisposition
        if let hooks {
            (disposition, _) = await hooks.delegate.urlSession(hooks.session, didReceive: challenge)
        } else {
            (disposition, _) = await (responder ?? downloader).downloader(downloader, didReceive: challenge)
        }
        switch disposition {
        case .useCredential:
            return true
        case .cancelAuthenticationChallenge:
            let endpoint = NetworkFailure.endpoint(host: host, port: port)
            let error = URLError(.cancelled, userInfo: [
                NSURLErrorFailingURLErrorKey: originalURL,
                NSLocalizedDescriptionKey: "the authentication challenge responder refused the TLS certificate of \(endpoint)",
            ])
            throw KingfisherError.responseError(reason: .URLSessionError(error: error))
        default:
            return trusted
        }
    }

    /// The request to send again with the credential the responder gives for a 401 asking for
    /// Basic authentication; `nil` when the response asks for no Basic credential or the
    /// responder gives none.
    func authenticatedRequest(after head: ResponseHead, for current: URLRequest, hooks: TransferHooks?) async throws -> URLRequest? {
        let responder = downloader.authenticationChallengeResponder
        // The default delegate and responder give no credential.
        if hooks == nil, responder == nil || responder === downloader { return nil }
        guard let url = current.url,
              let realm = head.headers["www-authenticate"].lazy.compactMap(ServerTrustChallenge.basicRealm(in:)).first
        else { return nil }
        let challenge = ServerTrustChallenge.basicChallenge(url: url, realm: realm, response: try urlResponse(head))
        let disposition: URLSession.AuthChallengeDisposition
        let credential: URLCredential?
        if let hooks {
            (disposition, credential) = await hooks.delegate.urlSession(hooks.session, task: hooks.task, didReceive: challenge)
        } else {
            (disposition, credential) = await (responder ?? downloader).downloader(downloader, task: task, didReceive: challenge)
        }
        guard disposition == .useCredential, let user = credential?.user, let password = credential?.password else { return nil }
        var next = current
        next.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        return next
    }

    /// Whether `error` means the connection closed before any of the response arrived.
    static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return true }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        return false
    }

    /// Whether `request` is a revalidation (`If-None-Match` or `If-Modified-Since`).
    static func isConditional(_ request: URLRequest) -> Bool {
        request.value(forHTTPHeaderField: "If-None-Match") != nil || request.value(forHTTPHeaderField: "If-Modified-Since") != nil
    }

    /// The Foundation response for hooks and errors; `.noURLResponse` if it cannot be made.
    func urlResponse(_ head: ResponseHead) throws -> HTTPURLResponse {
        guard let response = head.urlResponse else {
            throw KingfisherError.responseError(reason: .noURLResponse(task: self))
        }
        return response
    }
}
