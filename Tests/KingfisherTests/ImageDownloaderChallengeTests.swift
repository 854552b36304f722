import Foundation
import KingfisherSynchronization
import KingfisherTestServer
import Testing
@testable import Kingfisher
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A responder that answers every challenge as told and records what it was asked.
final class RecordingResponder: AuthenticationChallengeResponsible {
    let trustAnswer: URLSession.AuthChallengeDisposition
    let basicAnswer: (URLSession.AuthChallengeDisposition, URLCredential?)
    let trustSpaces = Mutex<[URLProtectionSpace]>([])
    let basicSpaces = Mutex<[URLProtectionSpace]>([])
    let basicTasks = Mutex<[URL?]>([])

    init(trust: URLSession.AuthChallengeDisposition = .performDefaultHandling,
         basic: (URLSession.AuthChallengeDisposition, URLCredential?) = (.performDefaultHandling, nil)) {
        trustAnswer = trust
        basicAnswer = basic
    }

    func downloader(_ downloader: ImageDownloader, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        trustSpaces.withLock { $0.append(challenge.protectionSpace) }
        return (trustAnswer, nil)
    }

    func downloader(_ downloader: ImageDownloader, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        basicSpaces.withLock { $0.append(challenge.protectionSpace) }
        basicTasks.withLock { $0.append(task.originalRequest?.url) }
        return basicAnswer
    }
}

/// Server trust and HTTP Basic authentication through `authenticationChallengeResponder`, against
/// the test server's self-signed TLS origin and a 401 origin.
@Suite struct ImageDownloaderChallengeTests {
    @Test func theDownloaderIsItsOwnResponderByDefault() async throws {
        let downloader = ImageDownloader(name: "responder")
        #expect(downloader.authenticationChallengeResponder === downloader)
        try await downloader.shutdown()
    }

    @Test func useCredentialAcceptsASelfSignedCertificate() async throws {
        try await ImageDownloaderTLSTests.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let responder = RecordingResponder(trust: .useCredential)
            downloader.authenticationChallengeResponder = responder
            let result = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(result.originalData == DownloaderKit.png)
            let space = try #require(responder.trustSpaces.withLock { $0.first })
            #expect(space.host == "localhost" && space.port == server.port)
            #expect(space.protocol == "https")
            #expect(space.authenticationMethod == "NSURLAuthenticationMethodServerTrust")
            #expect(server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test func cancelFailsWithAnErrorNamingTheHost() async throws {
        try await ImageDownloaderTLSTests.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let responder = RecordingResponder(trust: .cancelAuthenticationChallenge)
            downloader.authenticationChallengeResponder = responder
            downloader.trustedHosts = ["localhost"]
            let error = await #expect(throws: KingfisherError.self) {
                try await downloader.downloadImage(with: server.url("/a.png"))
            }
            guard case .responseError(reason: .URLSessionError(let underlying)) = error else {
                Issue.record("unexpected error \(String(describing: error))")
                return
            }
            #expect((underlying as? URLError)?.code == .cancelled)
            #expect(error?.localizedDescription.contains("localhost:\(server.port)") == true)
            #expect(server.requestCount(for: "/a.png") == 0)
        }
    }

    @Test func defaultHandlingIsTheSystemTrustPlusTrustedHosts() async throws {
        try await ImageDownloaderTLSTests.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let responder = RecordingResponder(trust: .performDefaultHandling)
            downloader.authenticationChallengeResponder = responder
            await #expect(throws: KingfisherError.self) {
                try await downloader.downloadImage(with: server.url("/a.png"))
            }
            #expect(responder.trustSpaces.withLock { $0.count } == 1)
            downloader.trustedHosts = ["localhost"]
            let result = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(result.originalData == DownloaderKit.png)
        }
    }

    @Test func aBasicChallengeIsAnsweredOnceWithTheResponderCredential() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/private.png", [
                .status(401).withHeaders([("WWW-Authenticate", "Basic realm=\"gallery\"")]),
                .ok(DownloaderKit.png),
            ])
            let credential = URLCredential(user: "ada", password: "s3cret", persistence: .forSession)
            let responder = RecordingResponder(basic: (.useCredential, credential))
            downloader.authenticationChallengeResponder = responder
            let result = try await downloader.downloadImage(with: server.url("/private.png"))
            #expect(result.originalData == DownloaderKit.png)
            let requests = server.requests(for: "/private.png")
            #expect(requests.count == 2)
            #expect(requests.first?.header("Authorization") == nil)
            #expect(requests.last?.header("Authorization") == "Basic " + Data("ada:s3cret".utf8).base64EncodedString())
            let space = try #require(responder.basicSpaces.withLock { $0.first })
            #expect(space.host == "127.0.0.1" && space.port == server.port)
            #expect(space.realm == "gallery")
            #expect(space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic)
            #expect(responder.basicTasks.withLock { $0 } == [server.url("/private.png")])
        }
    }

    @Test func aSecond401FailsWithTheStatus() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/private.png", .status(401).withHeaders([("WWW-Authenticate", "Basic realm=\"gallery\"")]))
            let credential = URLCredential(user: "ada", password: "wrong", persistence: .none)
            let responder = RecordingResponder(basic: (.useCredential, credential))
            downloader.authenticationChallengeResponder = responder
            await #expect {
                try await downloader.downloadImage(with: server.url("/private.png"))
            } throws: { error in
                guard case .responseError(reason: .invalidHTTPStatusCode(let response)) = error as? KingfisherError else { return false }
                return response.statusCode == 401
            }
            #expect(server.requestCount(for: "/private.png") == 2)
            #expect(responder.basicSpaces.withLock { $0.count } == 1)
        }
    }

    @Test func cancellingTheBasicChallengeFailsWithTheStatus() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/private.png", [
                .status(401).withHeaders([("WWW-Authenticate", "Basic realm=gallery")]),
                .ok(DownloaderKit.png),
            ])
            let responder = RecordingResponder(basic: (.cancelAuthenticationChallenge, nil))
            downloader.authenticationChallengeResponder = responder
            await #expect {
                try await downloader.downloadImage(with: server.url("/private.png"))
            } throws: { error in
                guard case .responseError(reason: .invalidHTTPStatusCode(let response)) = error as? KingfisherError else { return false }
                return response.statusCode == 401
            }
            #expect(server.requestCount(for: "/private.png") == 1)
            #expect(responder.basicSpaces.withLock { $0.first?.realm } == "gallery")
        }
    }

    @Test func anOriginThatNeverAsksGetsNoChallenge() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/open.png", .ok(DownloaderKit.png))
            let credential = URLCredential(user: "ada", password: "s3cret", persistence: .forSession)
            let responder = RecordingResponder(basic: (.useCredential, credential))
            downloader.authenticationChallengeResponder = responder
            _ = try await downloader.downloadImage(with: server.url("/open.png"))
            #expect(responder.basicSpaces.withLock { $0.isEmpty })
            #expect(responder.trustSpaces.withLock { $0.isEmpty })
            #expect(server.requests(for: "/open.png").first?.header("Authorization") == nil)
        }
    }

    @Test func withoutAResponderA401IsAPlainFailure() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/private.png", .status(401).withHeaders([("WWW-Authenticate", "Basic realm=\"gallery\"")]))
            await #expect {
                try await downloader.downloadImage(with: server.url("/private.png"))
            } throws: { error in
                guard case .responseError(reason: .invalidHTTPStatusCode(let response)) = error as? KingfisherError else { return false }
                return response.statusCode == 401
            }
            #expect(server.requestCount(for: "/private.png") == 1)
        }
    }
}
