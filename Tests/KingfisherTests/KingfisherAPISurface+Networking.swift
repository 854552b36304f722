import Foundation
import Kingfisher
import KingfisherSynchronization
import KingfisherTestServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Networking code written as a Kingfisher user writes it (plain `import Kingfisher`, no
// `@testable`): it touches every networking name restored for Linux, so it must keep compiling.

/// An app's responder: trusts its own image host and signs in to its private gallery.
private final class GalleryAuthenticator: AuthenticationChallengeResponsible {
    let answered = Mutex<Int>(0)

    func downloader(_ downloader: ImageDownloader, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        if challenge.protectionSpace.host == "images.internal.example" { return (.useCredential, nil) }
        return (.performDefaultHandling, nil)
    }

    func downloader(_ downloader: ImageDownloader, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        answered.withLock { $0 += 1 }
        guard challenge.protectionSpace.realm == "gallery" else { return (.cancelAuthenticationChallenge, nil) }
        return (.useCredential, URLCredential(user: "viewer", password: "pass", persistence: .forSession))
    }
}

/// An app's session delegate that logs every hook and keeps the default handling.
private final class LoggingSessionDelegate: SessionDelegate, @unchecked Sendable {
    // `@unchecked Sendable` as its superclass; `log` is a mutex.
    let log = Mutex<[String]>([])

    override func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) async
        -> URLSession.ResponseDisposition {
        log.withLock { $0.append("response") }
        return await super.urlSession(session, dataTask: dataTask, didReceive: response)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        log.withLock { $0.append(error == nil ? "done" : "failed") }
        super.urlSession(session, task: task, didCompleteWithError: error)
    }

    override func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        await super.urlSession(session, didReceive: challenge)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        await super.urlSession(session, task: task, didReceive: challenge)
    }

    override func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest
    ) async -> URLRequest? {
        log.withLock { $0.append("redirect") }
        return await super.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        log.withLock { $0.append("metrics") }
        super.urlSession(session, task: task, didFinishCollecting: metrics)
    }
}

/// Reads every member of the metrics, as an app's logging would.
private func describe(_ metrics: NetworkMetrics) -> String {
    let timings = [metrics.retrieveImageDuration, metrics.domainLookupDuration, metrics.connectDuration,
                   metrics.secureConnectionDuration].map { $0.map { String(format: "%.3f", $0) } ?? "-" }
    return "\(metrics.httpStatusCode ?? 0) \(metrics.responseBodyBytesReceived)B sent \(metrics.requestBodyBytesSent)B "
        + "redirects \(metrics.redirectCount) total \(metrics.totalRequestDuration) \(timings) "
        + "speed \(metrics.downloadSpeed ?? 0) \(metrics.downloadSpeedMBps ?? 0)"
}

@Suite struct KingfisherAPISurfaceNetworkingTests {
    @Test func configuredAsAKingfisherUserConfiguresIt() async throws {
        let server = try await TestHTTPServer.start()
        let png = try TestImages.gradient(width: 8, height: 6).encoded(as: .PNG)
        server.route("/old.png", .redirect(to: "/private.png"))
        server.route("/private.png", [
            .status(401).withHeaders([("WWW-Authenticate", "Basic realm=\"gallery\"")]),
            .ok(png),
        ])

        let downloader = ImageDownloader(name: "gallery")
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.httpAdditionalHeaders = ["User-Agent": "Gallery/1.0"]
        configuration.httpMaximumConnectionsPerHost = 4
        downloader.sessionConfiguration = configuration
        downloader.requestsUsePipelining = false
        let authenticator = GalleryAuthenticator()
        downloader.authenticationChallengeResponder = authenticator
        let delegate = LoggingSessionDelegate()
        downloader.sessionDelegate = delegate

        let redirects = Mutex<[String]>([])
        let start = server.url("/old.png")
        let options = await MainActor.run {
            KF.url(start).downloader(downloader).redirectHandler { (payload: KF.RedirectPayload) in
                let task: SessionDataTask = payload.task
                let response: HTTPURLResponse = payload.response
                redirects.withLock { $0.append("\(response.statusCode) \(task.originalURL.path) → \(payload.newRequest.url?.path ?? "")") }
                payload.completionHandler(payload.newRequest)
            }.options
        }

        let loaded = try await downloader.downloadImage(with: server.url("/old.png"), options: options)
        let metrics = try #require(loaded.metrics)
        #expect(describe(metrics).hasPrefix("200 \(png.count)B sent 0B redirects 1"))
        #expect(redirects.withLock { $0 } == ["302 /old.png → /private.png"])
        #expect(authenticator.answered.withLock { $0 } == 1)
        #expect(delegate.log.withLock { $0 } == ["redirect", "response", "metrics", "done"])
        #expect(server.requests(for: "/private.png").allSatisfy { $0.header("User-Agent") == "Gallery/1.0" })

        let task = downloader.downloadImage(with: server.url("/private.png"), completionHandler: { _ in })
        let transfer: SessionDataTask? = task?.sessionTask
        let urlTask: URLSessionDataTask? = transfer?.task
        #expect(urlTask?.originalRequest?.url == server.url("/private.png"))
        let received: Data? = transfer?.mutableData
        let measured: NetworkMetrics? = transfer?.metrics
        #expect(received != nil && (measured == nil || measured?.httpStatusCode == 200))

        // Results made by hand, as tests and custom providers make them.
        let made = ImageLoadingResult(image: loaded.image, url: loaded.url, originalData: png, metrics: metrics)
        #expect(made.metrics?.redirectCount == 1)
        let retrieved = RetrieveImageResult(
            image: loaded.image, cacheType: .none, source: .network(server.url("/old.png")),
            originalSource: .network(server.url("/old.png")), data: { png }, metrics: made.metrics)
        #expect(retrieved.metrics?.httpStatusCode == 200)

        try await downloader.shutdown()
        try await server.shutdown()
    }
}
