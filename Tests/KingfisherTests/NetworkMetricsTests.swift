import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// `NetworkMetrics` measured by the downloader, on the downloader's result, the manager's result
/// and the transfer.
@Suite struct NetworkMetricsTests {
    @Test func aDownloadReportsItsStatusBytesAndDurations() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.bigPNG))
            let result = try await downloader.downloadImage(with: server.url("/a.png"))
            let metrics = try #require(result.metrics)
            #expect(metrics.httpStatusCode == 200)
            #expect(metrics.responseBodyBytesReceived == Int64(DownloaderKit.bigPNG.count))
            #expect(metrics.requestBodyBytesSent == 0)
            #expect(metrics.redirectCount == 0)
            let retrieve = try #require(metrics.retrieveImageDuration)
            #expect(retrieve > 0 && retrieve <= metrics.totalRequestDuration)
            #expect(metrics.totalRequestDuration < 20)
            let speed = try #require(metrics.downloadSpeed)
            #expect(abs(speed - Double(DownloaderKit.bigPNG.count) / retrieve) < 0.001 * speed)
            #expect(metrics.downloadSpeedMBps.map { abs($0 - speed / 1_048_576) < 1e-9 } == true)
            // AsyncHTTPClient does not report when it resolves, connects or handshakes.
            #expect(metrics.domainLookupDuration == nil)
            #expect(metrics.connectDuration == nil)
            #expect(metrics.secureConnectionDuration == nil)
        }
    }

    @Test func redirectsAreCountedAndTheFinalStatusIsReported() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/one", .redirect(to: "/two", status: 301))
            server.route("/two", .redirect(to: "/a.png", status: 307))
            server.route("/a.png", .ok(DownloaderKit.png))
            let result = try await downloader.downloadImage(with: server.url("/one"))
            let metrics = try #require(result.metrics)
            #expect(metrics.redirectCount == 2)
            #expect(metrics.httpStatusCode == 200)
            #expect(metrics.responseBodyBytesReceived == Int64(DownloaderKit.png.count))
        }
    }

    @Test func theTransferKeepsItsMetricsAndData() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            let finished = Recorder<Bool>()
            let task = downloader.downloadImage(with: server.url("/a.png")) { _ in finished.record(true) }
            // Attached at once: no async request modifier.
            let session = try #require(task?.sessionTask)
            _ = await finished.wait(for: 1)
            #expect(session.metrics?.httpStatusCode == 200)
            #expect(session.metrics?.responseBodyBytesReceived == Int64(DownloaderKit.png.count))
            #expect(session.mutableData == DownloaderKit.png)
        }
    }

    @Test func aFailedTransferHasNoMetrics() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/missing.png", .status(404))
            let finished = Recorder<Bool>()
            let task = downloader.downloadImage(with: server.url("/missing.png")) { result in
                finished.record((try? result.get()) == nil)
            }
            let session = try #require(task?.sessionTask)
            #expect(await finished.wait(for: 1) == [true])
            #expect(session.metrics == nil)
            #expect(session.task.state == .completed)
        }
    }

    @Test func theManagerResultCarriesMetricsOnlyForANetworkImage() async throws {
        try await DownloaderKit.run { server, downloader in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = try ImageCache(name: "metrics", cacheDirectoryURL: folder)
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            server.route("/a.png", .ok(DownloaderKit.png))
            let first = try await manager.retrieveImage(with: server.url("/a.png"), options: [.waitForCache])
            #expect(first.cacheType == .none)
            #expect(first.metrics?.httpStatusCode == 200)
            #expect(first.metrics?.responseBodyBytesReceived == Int64(DownloaderKit.png.count))
            let second = try await manager.retrieveImage(with: server.url("/a.png"))
            #expect(second.cacheType == .memory)
            #expect(second.metrics == nil)
        }
    }
}
