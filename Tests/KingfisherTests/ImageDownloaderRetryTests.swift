import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Retry strategies: counts, delays through an injected sleep, and no retry of cancellations.
@Suite struct ImageDownloaderRetryTests {
    /// Records each requested delay and returns at once.
    static func recordingSleep(_ delays: Recorder<TimeInterval>) -> DelayRetryStrategy.Sleep {
        { seconds in delays.record(seconds) }
    }

    @Test func retriesUntilSuccessWithAccumulatedDelays() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/flaky.png", [.status(500), .status(503), .ok(DownloaderKit.png)])
            let delays = Recorder<TimeInterval>()
            let strategy = DelayRetryStrategy(maxRetryCount: 5, retryInterval: .accumulated(2), sleep: Self.recordingSleep(delays))
            let result = try await downloader.downloadImage(with: server.url("/flaky.png"), options: [.retryStrategy(strategy)])
            #expect(result.image.pixelWidth == 16)
            #expect(server.requestCount(for: "/flaky.png") == 3)
            #expect(delays.values == [2, 4])
        }
    }

    @Test func stopsAfterMaxRetryCountWithTheLastError() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/down.png", .status(500))
            let delays = Recorder<TimeInterval>()
            let strategy = DelayRetryStrategy(maxRetryCount: 2, retryInterval: .seconds(5), sleep: Self.recordingSleep(delays))
            await #expect {
                try await downloader.downloadImage(with: server.url("/down.png"), options: [.retryStrategy(strategy)])
            } throws: { ($0 as? KingfisherError)?.errorCode == 2002 }
            #expect(server.requestCount(for: "/down.png") == 3)
            #expect(delays.values == [5, 5])
        }
    }

    @Test func customIntervalSeesTheRetryCount() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/c.png", [.status(500), .status(500), .status(500), .ok(DownloaderKit.png)])
            let counts = Recorder<Int>(), delays = Recorder<TimeInterval>()
            let strategy = DelayRetryStrategy(
                maxRetryCount: 3,
                retryInterval: .custom { count in
                    counts.record(count)
                    return Double(count) * 10 + 1
                },
                sleep: Self.recordingSleep(delays))
            _ = try await downloader.downloadImage(with: server.url("/c.png"), options: [.retryStrategy(strategy)])
            #expect(counts.values == [0, 1, 2])
            #expect(delays.values == [1, 11, 21])
        }
    }

    @Test func requestErrorsAreNotRetried() async throws {
        try await DownloaderKit.run { server, downloader in
            let delays = Recorder<TimeInterval>()
            let strategy = DelayRetryStrategy(maxRetryCount: 3, retryInterval: .seconds(1), sleep: Self.recordingSleep(delays))
            await #expect {
                try await downloader.downloadImage(
                    with: server.url("/x.png"), options: [.retryStrategy(strategy), .requestModifier(AnyModifier { _ in nil })])
            } throws: { ($0 as? KingfisherError)?.errorCode == 1001 }
            #expect(delays.values.isEmpty)
        }
    }

    @Test func cancellationIsNeverRetried() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/held.png", .held(DownloaderKit.png, gate: gate))
            let asked = Recorder<Int>()
            struct CountingStrategy: RetryStrategy {
                let asked: Recorder<Int>
                func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
                    asked.record(context.retriedCount)
                    retryHandler(.retry(userInfo: nil))
                }
            }
            let results = Recorder<DownloadResult>()
            let task = try #require(downloader.downloadImage(
                with: server.url("/held.png"), options: [.retryStrategy(CountingStrategy(asked: asked))]) { results.record($0) })
            await gate.waitUntilWaiting(count: 1)
            task.cancel()
            #expect(await results.wait(for: 1)[0].error?.isTaskCancelled == true)
            #expect(asked.values.isEmpty)
            #expect(server.requestCount(for: "/held.png") == 1)
        }
    }

    @Test func cancellingDuringTheRetryDelayEndsTheCaller() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/e.png", .status(500))
            let sleeping = Recorder<TimeInterval>()
            let release = Recorder<Bool>()
            let strategy = DelayRetryStrategy(maxRetryCount: 3, retryInterval: .seconds(60)) { seconds in
                sleeping.record(seconds)
                // Held until the test opens the gate; no wall-clock wait.
                _ = await release.wait(for: 1)
            }
            let results = Recorder<DownloadResult>()
            let task = try #require(downloader.downloadImage(
                with: server.url("/e.png"), options: [.retryStrategy(strategy)]) { results.record($0) })
            #expect(await sleeping.wait(for: 1) == [60])
            #expect(task.sessionTask == nil)
            task.cancel()
            #expect(await results.wait(for: 1)[0].error?.isTaskCancelled == true)
            release.record(true)
            #expect(server.requestCount(for: "/e.png") == 1)
        }
    }

    @Test func userInfoReachesTheNextDecision() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/u.png", [.status(500), .status(500), .ok(DownloaderKit.png)])
            let seen = Recorder<String>()
            struct TaggingStrategy: RetryStrategy {
                let seen: Recorder<String>
                func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
                    seen.record((context.userInfo as? String) ?? "none")
                    retryHandler(.retry(userInfo: "attempt \(context.retriedCount + 1)"))
                }
            }
            _ = try await downloader.downloadImage(with: server.url("/u.png"), options: [.retryStrategy(TaggingStrategy(seen: seen))])
            #expect(seen.values == ["none", "attempt 1"])
        }
    }
}
