import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `sessionConfiguration` applied to the AsyncHTTPClient transport: headers, timeouts, connections
/// per host, cookies, and the rebuild of the client when it is set.
@Suite struct ImageDownloaderSessionConfigurationTests {
    @Test func defaultIsEphemeralWithTheDownloaderConnectionLimit() async throws {
        let downloader = ImageDownloader(name: "config-default", maxConnectionsPerHost: 5)
        let configuration = downloader.sessionConfiguration
        #expect(configuration.httpMaximumConnectionsPerHost == 5)
        #expect(configuration.timeoutIntervalForRequest == URLSessionConfiguration.ephemeral.timeoutIntervalForRequest)
        #expect(downloader.requestsUsePipelining == false)
        // The getter hands out a copy: changing it changes nothing until it is set back.
        configuration.httpMaximumConnectionsPerHost = 1
        #expect(downloader.maxConnectionsPerHost == 5)
        downloader.sessionConfiguration = configuration
        #expect(downloader.maxConnectionsPerHost == 1)
        #expect(downloader.scheduler.limit == 1)
        try await downloader.shutdown()
    }

    @Test func additionalHeadersGoOnEveryRequestAndTheRequestsOwnWins() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-App": "gallery", "X-Token": "from-configuration"]
            downloader.sessionConfiguration = configuration
            _ = try await downloader.downloadImage(with: server.url("/a.png"))
            let modifier = AnyModifier { request in
                var request = request
                request.setValue("from-request", forHTTPHeaderField: "x-token")
                return request
            }
            _ = try await downloader.downloadImage(with: server.url("/a.png"), options: [.requestModifier(modifier)])
            let requests = server.requests(for: "/a.png")
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.header("X-App") == "gallery" })
            #expect(requests.first?.header("X-Token") == "from-configuration")
            #expect(requests.last?.header("X-Token") == "from-request")
            #expect(requests.last?.headers.filter { $0.0.lowercased() == "x-token" }.count == 1)
        }
    }

    @Test func timeoutIntervalForRequestIsTheIdleTimeout() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/silent.png", .never())
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 0.3
            downloader.sessionConfiguration = configuration
            #expect(downloader.downloadTimeout == 15)
            await #expect {
                try await downloader.downloadImage(with: server.url("/silent.png"))
            } throws: { error in
                guard case .responseError(reason: .downloadTimedOut(_, let timeout)) = error as? KingfisherError else { return false }
                return timeout == 0.3
            }
        }
    }

    @Test func timeoutIntervalForResourceBoundsAWholeTransferThatKeepsProgressing() async throws {
        try await DownloaderKit.run { server, downloader in
            // 2 KiB every 200 ms is progress for the idle timeout, but the whole body takes 15 s: far
            // past the 0.5 s bound even when a loaded machine delays the downloader's watchdog.
            server.route("/slow.png", .slow(DownloaderKit.bigPNG.prefix(150_000), chunkSize: 2048, interval: 0.2))
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForResource = 0.5
            downloader.sessionConfiguration = configuration
            await #expect {
                try await downloader.downloadImage(with: server.url("/slow.png"))
            } throws: { error in
                guard case .responseError(reason: .downloadTimedOut(_, let timeout)) = error as? KingfisherError else { return false }
                return timeout == 0.5
            }
        }
    }

    @Test func httpMaximumConnectionsPerHostLimitsRequestsInFlight() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            for index in 0..<4 { server.route("/held\(index).png", .held(DownloaderKit.png, gate: gate)) }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpMaximumConnectionsPerHost = 2
            downloader.sessionConfiguration = configuration
            let tasks = (0..<4).map { index in
                Task { try await downloader.downloadImage(with: server.url("/held\(index).png")) }
            }
            await gate.waitUntilWaiting(count: 2)
            while downloader.scheduler.load(host: "127.0.0.1").waiting < 2, !Task.isCancelled { await Task.yield() }
            #expect(downloader.scheduler.load(host: "127.0.0.1").running == 2)
            #expect(gate.waitingCount == 2)
            gate.open()
            for task in tasks { _ = try await task.value }
        }
    }

    @Test func cookiesAreStoredAndSentBack() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/login", .redirect(to: "/first.png").withHeaders([("Set-Cookie", "session=abc123; Path=/")]))
            server.route("/first.png", .ok(DownloaderKit.png).withHeaders([("Set-Cookie", "theme=dark; Path=/")]))
            server.route("/second.png", .ok(DownloaderKit.png))
            let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieStorage = storage
            configuration.httpCookieAcceptPolicy = .always
            downloader.sessionConfiguration = configuration
            _ = try await downloader.downloadImage(with: server.url("/login"))
            _ = try await downloader.downloadImage(with: server.url("/second.png"))
            #expect(server.requests(for: "/first.png").first?.header("Cookie") == "session=abc123")
            let sent = server.requests(for: "/second.png").first?.header("Cookie") ?? ""
            #expect(Set(sent.components(separatedBy: "; ")) == ["session=abc123", "theme=dark"])
            #expect(Set((storage.cookies ?? []).map(\.name)) == ["session", "theme"])
        }
    }

    @Test func cookiesAreNeitherStoredNorSentWhenTheConfigurationSaysNo() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/set.png", .ok(DownloaderKit.png).withHeaders([("Set-Cookie", "tracker=1; Path=/")]))
            server.route("/next.png", .ok(DownloaderKit.png))
            for refuse in [{ (c: URLSessionConfiguration) in c.httpShouldSetCookies = false },
                           { (c: URLSessionConfiguration) in c.httpCookieAcceptPolicy = .never }] {
                let storage = try #require(URLSessionConfiguration.ephemeral.httpCookieStorage)
                let configuration = URLSessionConfiguration.ephemeral
                configuration.httpCookieStorage = storage
                refuse(configuration)
                downloader.sessionConfiguration = configuration
                _ = try await downloader.downloadImage(with: server.url("/set.png"))
                #expect((storage.cookies ?? []).isEmpty)
            }
            _ = try await downloader.downloadImage(with: server.url("/next.png"))
            #expect(server.requests(for: "/next.png").first?.header("Cookie") == nil)
        }
    }

    @Test func settingTheConfigurationLetsRunningDownloadsFinishOnTheOldClient() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/held.png", .heldBody(DownloaderKit.png, gate: gate))
            server.route("/after.png", .ok(DownloaderKit.png))
            let running = Task { try await downloader.downloadImage(with: server.url("/held.png")) }
            await gate.waitUntilWaiting(count: 1)
            let old = downloader.transportState.withLock { $0 }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpAdditionalHeaders = ["X-Generation": "2"]
            downloader.sessionConfiguration = configuration
            #expect(downloader.transportState.withLock { $0 } !== old)
            gate.open()
            let result = try await running.value
            #expect(result.originalData == DownloaderKit.png)
            _ = try await downloader.downloadImage(with: server.url("/after.png"))
            #expect(server.requests(for: "/held.png").first?.header("X-Generation") == nil)
            #expect(server.requests(for: "/after.png").first?.header("X-Generation") == "2")
        }
    }
}
