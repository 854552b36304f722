import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `connectionProxyDictionary` through a real tinyproxy the test starts on 127.0.0.1: `http` URLs
/// go through the HTTP proxy, `https` URLs through the HTTPS proxy (AsyncHTTPClient tunnels both
/// with `CONNECT`). A proxy that refuses connections fails the same download, which shows the proxy
/// is really used.
/// Without tinyproxy installed these tests fail, saying so.
@Suite struct ImageDownloaderProxyTests {
    private static func withProxy(_ body: @Sendable (TinyProxy) async throws -> Void) async throws {
        let proxy = try await TinyProxy.start()
        do {
            try await body(proxy)
        } catch {
            proxy.stop()
            throw error
        }
        proxy.stop()
    }

    @Test func plainHTTPGoesThroughTheHTTPProxy() async throws {
        try await Self.withProxy { proxy in
            try await DownloaderKit.run { server, downloader in
                try await Self.downloadsThrough(proxy, https: false, server, downloader)
            }
        }
    }

    @Test func httpsIsTunnelledThroughTheHTTPSProxy() async throws {
        try await Self.withProxy { proxy in
            try await ImageDownloaderTLSTests.run { server, downloader in
                downloader.trustedHosts = ["localhost"]
                try await Self.downloadsThrough(proxy, https: true, server, downloader)
            }
        }
    }

    /// Downloads from `server` through `proxy`'s HTTP or HTTPS entry, then through the same entry
    /// pointed at a port that refuses connections: that download must fail without reaching the
    /// origin, which shows the first went through the proxy.
    private static func downloadsThrough(
        _ proxy: TinyProxy, https: Bool, _ server: TestHTTPServer, _ downloader: ImageDownloader
    ) async throws {
        server.route("/a.png", .ok(DownloaderKit.png))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.connectionProxyDictionary = proxy.proxyDictionary(http: !https, https: https)
        downloader.sessionConfiguration = configuration
        let result = try await downloader.downloadImage(with: server.url("/a.png"))
        #expect(result.originalData == DownloaderKit.png)
        #expect(server.requestCount(for: "/a.png") == 1)
        let refusing = try RefusingPort()
        defer { refusing.close() }
        var dead = proxy.proxyDictionary(http: !https, https: https)
        dead[https ? "HTTPSPort" : "HTTPPort"] = refusing.port
        configuration.connectionProxyDictionary = dead
        downloader.sessionConfiguration = configuration
        await #expect(throws: KingfisherError.self) {
            try await downloader.downloadImage(with: server.url("/a.png"))
        }
        #expect(server.requestCount(for: "/a.png") == 1)
    }

    @Test func aDisabledOrAbsentProxyIsNotUsed() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let refusing = try RefusingPort()
            defer { refusing.close() }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.connectionProxyDictionary = ["HTTPEnable": 0, "HTTPProxy": "127.0.0.1", "HTTPPort": refusing.port]
            downloader.sessionConfiguration = configuration
            _ = try await downloader.downloadImage(with: server.url("/a.png"))
            // Only an HTTPS proxy: plain HTTP goes direct.
            configuration.connectionProxyDictionary = ["HTTPSEnable": 1, "HTTPSProxy": "127.0.0.1", "HTTPSPort": refusing.port]
            downloader.sessionConfiguration = configuration
            _ = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(server.requestCount(for: "/a.png") == 2)
        }
    }
}
