import Foundation
import KingfisherSynchronization
import KingfisherTestServer
import Testing
@testable import Kingfisher
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that records each hook and calls `super`, or answers as told.
final class RecordingSessionDelegate: SessionDelegate, @unchecked Sendable {
    // `@unchecked Sendable` as its superclass; its own state is in the `events` mutex.
    let events = Mutex<[String]>([])
    let tasks = Mutex<[URLSessionTask]>([])
    let completionErrors = Mutex<[String]>([])
    let sessionHeader = Mutex<String?>(nil)
    let refuseResponse: Bool
    let stopRedirects: Bool

    init(refuseResponse: Bool = false, stopRedirects: Bool = false) {
        self.refuseResponse = refuseResponse
        self.stopRedirects = stopRedirects
        super.init()
    }

    private func note(_ event: String, _ task: URLSessionTask?) {
        events.withLock { $0.append(event) }
        if let task { tasks.withLock { $0.append(task) } }
    }

    override func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse) async
        -> URLSession.ResponseDisposition {
        note("response \((response as? HTTPURLResponse)?.statusCode ?? 0)", dataTask)
        let seen = session.configuration.httpAdditionalHeaders?["X-Seen"] as? String
        sessionHeader.withLock { $0 = seen }
        if refuseResponse { return .cancel }
        return await super.urlSession(session, dataTask: dataTask, didReceive: response)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        note("complete", task)
        completionErrors.withLock { $0.append(error.map { "\($0)" } ?? "none") }
    }

    override func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        note("trust \(challenge.protectionSpace.host)", nil)
        return await super.urlSession(session, didReceive: challenge)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        note("auth \(challenge.protectionSpace.realm ?? "")", task)
        return (.useCredential, URLCredential(user: "ada", password: "pw", persistence: .none))
    }

    override func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest
    ) async -> URLRequest? {
        note("redirect \(response.statusCode) \(request.url?.path ?? "")", task)
        if stopRedirects { return nil }
        return await super.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request)
    }

    override func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        note("metrics", task)
    }
}

/// `ImageDownloader.sessionDelegate`: each hook is called at its moment with the transfer's task.
@Suite struct SessionDelegateTests {
    @Test func everyHookIsCalledInOrderWithTheTransferTask() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/start", .redirect(to: "/private.png"))
            server.route("/private.png", [
                .status(401).withHeaders([("WWW-Authenticate", "Basic realm=\"vault\"")]),
                .ok(DownloaderKit.png),
            ])
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Seen": "yes"]
            downloader.sessionConfiguration = configuration
            let delegate = RecordingSessionDelegate()
            downloader.sessionDelegate = delegate
            #expect(downloader.sessionDelegate === delegate)
            let result = try await downloader.downloadImage(with: server.url("/start"))
            #expect(result.originalData == DownloaderKit.png)
            #expect(delegate.events.withLock { $0 } == ["redirect 302 /private.png", "auth vault", "response 200", "metrics", "complete"])
            #expect(delegate.completionErrors.withLock { $0 } == ["none"])
            let tasks = delegate.tasks.withLock { $0 }
            #expect(tasks.allSatisfy { $0 === tasks.first })
            let task = try #require(tasks.first)
            #expect(task.originalRequest?.url == server.url("/start"))
            #expect(task.currentRequest?.url == server.url("/private.png"))
            #expect((task.response as? HTTPURLResponse)?.statusCode == 200)
            #expect(task.countOfBytesReceived == Int64(DownloaderKit.png.count))
            #expect(task.state == .completed)
            #expect(delegate.sessionHeader.withLock { $0 } == "yes")
        }
    }

    @Test func refusingTheResponseFailsTheDownload() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let delegate = RecordingSessionDelegate(refuseResponse: true)
            downloader.sessionDelegate = delegate
            await #expect {
                try await downloader.downloadImage(with: server.url("/a.png"))
            } throws: { error in
                guard case .responseError(reason: .cancelledByDelegate) = error as? KingfisherError else { return false }
                return true
            }
            #expect(delegate.completionErrors.withLock { $0.count } == 1)
            #expect(delegate.completionErrors.withLock { $0.first } != "none")
        }
    }

    @Test func theDefaultResponseHookValidatesTheStatus() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/missing.png", .status(404))
            downloader.sessionDelegate = RecordingSessionDelegate()
            await #expect {
                try await downloader.downloadImage(with: server.url("/missing.png"))
            } throws: { error in
                guard case .responseError(reason: .invalidHTTPStatusCode(let response)) = error as? KingfisherError else { return false }
                return response.statusCode == 404
            }
        }
    }

    @Test func theRedirectHookCanStopARedirect() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/start", .redirect(to: "/a.png"))
            server.route("/a.png", .ok(DownloaderKit.png))
            downloader.sessionDelegate = RecordingSessionDelegate(stopRedirects: true)
            await #expect(throws: KingfisherError.self) {
                try await downloader.downloadImage(with: server.url("/start"))
            }
            #expect(server.requestCount(for: "/a.png") == 0)
        }
    }

    @Test func theTrustHookIsAskedForHTTPS() async throws {
        try await ImageDownloaderTLSTests.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            downloader.trustedHosts = ["localhost"]
            let delegate = RecordingSessionDelegate()
            downloader.sessionDelegate = delegate
            _ = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(delegate.events.withLock { $0.first } == "trust localhost")
        }
    }

    @Test func cancellingTheTaskStandInCancelsTheTransfer() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/held.png", .held(DownloaderKit.png, gate: gate))
            let finished = Recorder<Bool>()
            let task = downloader.downloadImage(with: server.url("/held.png")) { result in
                if case .failure(let error) = result { finished.record(error.isTaskCancelled) } else { finished.record(false) }
            }
            let session = try #require(task?.sessionTask)
            await gate.waitUntilWaiting(count: 1)
            #expect(session.task.state == .running)
            #expect(session.task.originalRequest?.url == server.url("/held.png"))
            session.task.cancel()
            #expect(await finished.wait(for: 1) == [true])
            gate.open()
        }
    }

    @Test func theClosureRedirectHandlerSeesThePayload() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/start", .redirect(to: "/a.png", status: 301))
            server.route("/a.png", .ok(DownloaderKit.png))
            let seen = Recorder<String>()
            let start = server.url("/start")
            let options = await MainActor.run {
                KF.url(start).downloader(downloader).redirectHandler { payload in
                    seen.record("\(payload.response.statusCode) \(payload.newRequest.url?.path ?? "") \(payload.task.originalURL.path)")
                    var request = payload.newRequest
                    request.setValue("redirected", forHTTPHeaderField: "X-Via-Handler")
                    payload.completionHandler(request)
                }.options
            }
            let result = try await downloader.downloadImage(with: server.url("/start"), options: options)
            #expect(result.originalData == DownloaderKit.png)
            #expect(await seen.wait(for: 1) == ["301 /a.png /start"])
            #expect(server.requests(for: "/a.png").first?.header("X-Via-Handler") == "redirected")
        }
    }
}
