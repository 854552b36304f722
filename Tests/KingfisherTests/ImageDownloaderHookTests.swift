import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

/// Request modifiers, redirect handlers and the downloader delegate.
@Suite struct ImageDownloaderHookTests {
    struct AsyncHeaderModifier: AsyncImageDownloadRequestModifier {
        let started: Recorder<Bool>
        func modified(for request: URLRequest) async -> URLRequest? {
            await Task.yield()
            var request = request
            request.setValue("Bearer async", forHTTPHeaderField: "Authorization")
            return request
        }
        var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? {
            { [started] task in started.record(task?.sessionTask != nil) }
        }
    }

    @Test func modifierRewritesTheURL() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/real.png", .ok(DownloaderKit.png))
            let target = server.url("/real.png")
            let modifier = AnyModifier { request in
                var request = request
                request.url = target
                return request
            }
            let result = try await downloader.downloadImage(with: server.url("/asked.png"), options: [.requestModifier(modifier)])
            #expect(result.url == target)
            #expect(server.requestCount(for: "/real.png") == 1)
            #expect(server.requestCount(for: "/asked.png") == 0)
        }
    }

    @Test func modifiersAddHeadersSyncAndAsync() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/h.png", .ok(DownloaderKit.png))
            let sync = AnyModifier { request in
                var request = request
                request.setValue("kingfisher-linux", forHTTPHeaderField: "X-Client")
                return request
            }
            _ = try await downloader.downloadImage(with: server.url("/h.png"), options: [.requestModifier(sync)])
            #expect(server.requests(for: "/h.png").last?.header("x-client") == "kingfisher-linux")

            let started = Recorder<Bool>()
            _ = try await downloader.downloadImage(
                with: server.url("/h.png"), options: [.requestModifier(AsyncHeaderModifier(started: started))])
            #expect(server.requests(for: "/h.png").last?.header("authorization") == "Bearer async")
            #expect(await started.wait(for: 1) == [true])
        }
    }

    @Test func modifierReturningNilIsAnEmptyRequestAndSendsNothing() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/n.png", .ok(DownloaderKit.png))
            let results = Recorder<DownloadResult>()
            let task = downloader.downloadImage(
                with: server.url("/n.png"), options: [.requestModifier(AnyModifier { _ in nil })]) { results.record($0) }
            #expect(task == nil)
            let error = try #require(await results.wait(for: 1)[0].error)
            guard case .requestError(reason: .emptyRequest) = error else { throw error }

            let ftp = AnyModifier { request in
                var request = request
                request.url = URL(string: "ftp://127.0.0.1/n.png")
                return request
            }
            await #expect {
                try await downloader.downloadImage(with: server.url("/n.png"), options: [.requestModifier(ftp)])
            } throws: { ($0 as? KingfisherError)?.errorCode == 1002 }
            #expect(server.requestCount(for: "/n.png") == 0)
        }
    }

    @Test func differentlyModifiedRequestsAreNotShared() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/m.png", .held(DownloaderKit.png, gate: gate))
            func header(_ value: String) -> AnyModifier {
                AnyModifier { request in
                    var request = request
                    request.setValue(value, forHTTPHeaderField: "X-Variant")
                    return request
                }
            }
            let results = Recorder<DownloadResult>()
            for value in ["a", "a", "b"] {
                _ = downloader.downloadImage(with: server.url("/m.png"), options: [.requestModifier(header(value))]) { results.record($0) }
            }
            await gate.waitUntilWaiting(count: 2)
            gate.open()
            #expect(await results.wait(for: 3).allSatisfy { (try? $0.get()) != nil })
            #expect(server.requestCount(for: "/m.png") == 2)
        }
    }

    @Test func redirectsAreFollowedAndTheHandlerCanChangeThem() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/from", .redirect(to: "/middle", status: 301))
            server.route("/middle", .redirect(to: server.url("/to.png").absoluteString, status: 307))
            server.route("/to.png", .ok(DownloaderKit.png))
            let plain = try await downloader.downloadImage(with: server.url("/from"))
            #expect(plain.image.pixelWidth == 16)
            #expect(plain.url == server.url("/from"))

            let seen = Recorder<Int>()
            let handler = AnyRedirectHandler { task, response, request, done in
                seen.record(response.statusCode)
                #expect(task.originalURL == server.url("/from"))
                var request = request
                request.setValue("yes", forHTTPHeaderField: "X-Redirected")
                done(request)
            }
            _ = try await downloader.downloadImage(with: server.url("/from"), options: [.redirectHandler(handler)])
            #expect(seen.values == [301, 307])
            #expect(server.requests(for: "/to.png").last?.header("x-redirected") == "yes")
            #expect(server.requests(for: "/to.png").first?.header("x-redirected") == nil)
        }
    }

    @Test func handlerReturningNilStopsAtTheRedirectResponse() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/stop", .redirect(to: "/never.png"))
            server.route("/never.png", .ok(DownloaderKit.png))
            let handler = AnyRedirectHandler { _, _, _, done in done(nil) }
            await #expect(throws: KingfisherError.self) {
                try await downloader.downloadImage(with: server.url("/stop"), options: [.redirectHandler(handler)])
            }
            #expect(server.requestCount(for: "/never.png") == 0)
        }
    }

    @Test func redirectLoopsStopAtTheLimit() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/loop-a", .redirect(to: "/loop-b"))
            server.route("/loop-b", .redirect(to: "/loop-a"))
            downloader.maximumRedirects = 5
            await #expect {
                try await downloader.downloadImage(with: server.url("/loop-a"))
            } throws: { error in
                guard let error = error as? KingfisherError,
                      case .responseError(reason: .tooManyRedirects(let url, let limit)) = error else { return false }
                return url == server.url("/loop-a") && limit == 5
                    && error.localizedDescription.contains(server.url("/loop-a").absoluteString)
            }
            #expect(server.requestCount(for: "/loop-a") + server.requestCount(for: "/loop-b") == 6)
        }
    }
}
