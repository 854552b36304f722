import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionDataTask {
    /// The whole life of the transfer: wait for a slot on the host, fetch, then hand the data to
    /// the callers (processed once per processor) or the error to each of them.
    func run() async {
        let host = originalURL.host ?? ""
        let outcome: Result<(Data, ResponseHead), KingfisherError>
        do {
            try await downloader.scheduler.acquire(host: host, priority: priority)
            defer { downloader.scheduler.release(host: host) }
            downloader.reportWillDownload(url: originalURL, request: request)
            outcome = .success(try await fetch())
        } catch {
            outcome = .failure(mapError(error))
        }

        let callers = closeAndTakeCallers()
        downloader.removeSessionTask(self)

        // The delegate may refuse the data; the finish report then carries that error, so it is
        // made once, after the decision.
        switch outcome {
        case .failure(let error):
            downloader.reportDidFinishDownloading(url: originalURL, response: nil, error: error)
            for caller in callers {
                // A cancellation names each caller's own token.
                var own = error
                if case .requestError(reason: .taskCancelled) = error {
                    own = .requestError(reason: .taskCancelled(task: self, token: caller.attachedToken ?? 0))
                }
                downloader.deliver(.failure(own), to: caller)
            }
        case .success(let (data, response)):
            guard let data = downloader.reportDidDownload(data: data, task: self) else {
                let error = KingfisherError.responseError(reason: .dataModifyingFailed(task: self))
                downloader.reportDidFinishDownloading(url: originalURL, response: response, error: error)
                for caller in callers { downloader.deliver(.failure(error), to: caller) }
                return
            }
            downloader.reportDidFinishDownloading(url: originalURL, response: response, error: nil)
            let validators = ResponseValidators(headers: response.headers)
            ImageDataProcessor(data: data, url: originalURL, callers: callers, validators: validators).process { image in
                downloader.reportDidDownload(image: image, url: originalURL, response: response)
            }
        }
    }

    /// Turns whatever stopped the transfer into the error its callers see (a cancellation's token
    /// is each caller's own, set when it is delivered).
    private func mapError(_ error: any Error) -> KingfisherError {
        switch stopReason {
        case .timedOut:
            return .responseError(reason: .downloadTimedOut(url: originalURL, timeout: downloader.transferSettings.timeout))
        case .cancelled:
            return .requestError(reason: .taskCancelled(task: self, token: 0))
        case nil:
            break
        }
        if let error = error as? KingfisherError { return error }
        if error is CancellationError {
            return .requestError(reason: .taskCancelled(task: self, token: 0))
        }
        if let error = error as? HTTPClientError, error == .deadlineExceeded {
            return .responseError(reason: .downloadTimedOut(url: originalURL, timeout: downloader.transferSettings.timeout))
        }
        return .responseError(reason: .URLSessionError(error: error))
    }

    /// Sends the request, follows redirects, validates the response and reads the body.
    private func fetch() async throws -> (Data, ResponseHead) {
        let settings = downloader.transferSettings
        let watchdog = IdleWatchdog(timeout: settings.timeout) { [weak self] in
            self?.stopForTimeout()
        }
        downloader.sweeper.add(watchdog)
        defer { downloader.sweeper.remove(watchdog) }

        var current = request
        var redirects = 0
        var retriedStaleConnection = false
        while true {
            guard let url = current.url else { throw KingfisherError.requestError(reason: .invalidURL(request: current)) }
            let response: HTTPClientResponse
            do {
                response = try await downloader.client.execute(
                    try makeClientRequest(current, settings: settings),
                    deadline: .now() + .nanoseconds(Int64(min(settings.timeout, 1_000_000) * 1_000_000_000))
                )
            } catch let error where !retriedStaleConnection && Self.isStaleConnection(error) {
                // A pooled connection closed as the request was handed to it (the server closed
                // it, or the previous response left stray bytes): nothing of a response arrived,
                // so the request is sent again once, on a fresh connection.
                retriedStaleConnection = true
                continue
            }
            watchdog.touch()
            let head = ResponseHead(url: url, response: response)

            if let next = try await redirectRequest(after: response, head: head, from: current, redirects: &redirects, limit: settings.maximumRedirects) {
                // Drain the redirect's (small) body so the connection can be reused.
                var drained = 0
                for try await part in response.body {
                    drained += part.readableBytes
                    if drained > 64 * 1024 { break }
                }
                current = next
                continue
            }

            if head.statusCode == 304, Self.isConditional(current) {
                for try await _ in response.body {}
                throw KingfisherError.responseError(reason: .notModified(url: url, validators: ResponseValidators(headers: head.headers)))
            }
            guard downloader.isValidStatusCode(head.statusCode) else {
                throw KingfisherError.responseError(reason: .invalidHTTPStatusCode(response: try urlResponse(head)))
            }
            if downloader.delegate != nil {
                let response = try urlResponse(head)
                guard await downloader.responseDisposition(for: response) == .allow else {
                    throw KingfisherError.responseError(reason: .cancelledByDelegate(response: response))
                }
            }
            let data = try await readBody(response, url: url, limit: settings.maximumResponseSize, watchdog: watchdog)
            return (data, head)
        }
    }

    /// The request for the redirect in `response`, or `nil` when it is not one or is not followed.
    private func redirectRequest(
        after response: HTTPClientResponse, head: ResponseHead, from current: URLRequest,
        redirects: inout Int, limit: Int
    ) async throws -> URLRequest? {
        let status = Int(response.status.code)
        guard [301, 302, 303, 307, 308].contains(status),
              let location = response.headers.first(name: "location"),
              let base = current.url,
              let target = URL(string: location, relativeTo: base)?.absoluteURL else { return nil }
        redirects += 1
        guard redirects <= limit else {
            throw KingfisherError.responseError(reason: .tooManyRedirects(url: originalURL, limit: limit))
        }
        var next = current
        next.url = target
        if status == 303 || ((status == 301 || status == 302) && current.httpMethod != "HEAD") {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        guard let handler = redirectHandler else { return next }
        return await handler.handleHTTPRedirection(for: self, response: try urlResponse(head), newRequest: next)
    }

    /// Streams the body into a buffer sized from `Content-Length`, within `limit` bytes.
    private func readBody(_ response: HTTPClientResponse, url: URL, limit: Int64, watchdog: IdleWatchdog) async throws -> Data {
        let declared = response.headers.first(name: "content-length")
            .flatMap { Int64($0) ?? Int64($0.trimmingCharacters(in: .whitespaces)) }
            .flatMap { $0 >= 0 ? $0 : nil }
        if let declared, declared > limit {
            throw KingfisherError.responseError(
                reason: .responseTooLarge(url: url, limit: limit, declaredSize: declared, receivedSize: 0))
        }
        var data = Data()
        if let declared { data.reserveCapacity(Int(declared)) }
        var received: Int64 = 0
        let total = declared ?? -1
        for try await part in response.body {
            received += Int64(part.readableBytes)
            guard received <= limit else {
                throw KingfisherError.responseError(
                    reason: .responseTooLarge(url: url, limit: limit, declaredSize: nil, receivedSize: received))
            }
            watchdog.received(part.readableBytes)
            part.withUnsafeReadableBytes { data.append(contentsOf: $0) }
            let callers = activeCallers
            for caller in callers {
                caller.reportProgress(received: received, total: total)
            }
            if callers.contains(where: { $0.dataObserver != nil }) {
                let piece = Data(part.readableBytesView)
                for caller in callers { caller.reportData(piece) }
            }
        }
        try Task.checkCancellation()
        if let declared, received < declared {
            throw KingfisherError.responseError(reason: .responseIncomplete(url: url, expected: declared, received: received))
        }
        return data
    }

    private func makeClientRequest(_ request: URLRequest, settings: ImageDownloader.TransferSettings) throws -> HTTPClientRequest {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host != nil else {
            throw KingfisherError.requestError(reason: .invalidURL(request: request))
        }
        var clientRequest = HTTPClientRequest(url: url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            clientRequest.headers.add(name: name, value: value)
        }
        if let body = request.httpBody {
            clientRequest.body = .bytes(ByteBuffer(bytes: body))
        }
        if scheme == "https" {
            let trusted = url.host.map { settings.trustedHosts.contains($0) } ?? false
            if trusted || !settings.trustRoots.isEmpty {
                var tls = TLSConfiguration.makeClientConfiguration()
                if trusted { tls.certificateVerification = .none }
                if !settings.trustRoots.isEmpty { tls.additionalTrustRoots = [.certificates(settings.trustRoots)] }
                clientRequest.tlsConfiguration = tls
            }
        }
        return clientRequest
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
    private func urlResponse(_ head: ResponseHead) throws -> HTTPURLResponse {
        guard let response = head.urlResponse else {
            throw KingfisherError.responseError(reason: .noURLResponse(task: self))
        }
        return response
    }
}

/// The status line and headers of a response, turned into an `HTTPURLResponse` only when a hook
/// or an error needs one (building it costs about a tenth of a small download's CPU).
struct ResponseHead: Sendable {
    let url: URL
    let statusCode: Int
    let version: HTTPVersion
    let headers: HTTPHeaders

    init(url: URL, response: HTTPClientResponse) {
        self.url = url
        self.statusCode = Int(response.status.code)
        self.version = response.version
        self.headers = response.headers
    }

    var urlResponse: HTTPURLResponse? {
        var fields: [String: String] = [:]
        for (name, value) in headers {
            if let existing = fields[name] {
                fields[name] = existing + ", " + value
            } else {
                fields[name] = value
            }
        }
        return HTTPURLResponse(
            url: url, statusCode: statusCode, httpVersion: "HTTP/\(version.major).\(version.minor)", headerFields: fields)
    }
}
