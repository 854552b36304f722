import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// A retry strategy that tells the test when it is asked, then waits for a gate before retrying.
final class GatedRetry: RetryStrategy {
    let asked = Recorder<Int>()
    let gate = TaskGate()
    func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        asked.record(context.retriedCount)
        Task {
            await gate.wait()
            retryHandler(.retry(userInfo: nil))
        }
    }
}

/// The default serializer, whose first decode tells the test it started and then waits for it.
final class GatedSerializer: CacheSerializer {
    let entered = Recorder<Int>()
    let release = DispatchSemaphore(value: 0)
    private let first = Mutex(true)

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        DefaultCacheSerializer.default.data(with: image, original: original)
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let isFirst = first.withLock { value -> Bool in
            defer { value = false }
            return value
        }
        if isFirst {
            entered.record(1)
            release.wait()
        }
        return DefaultCacheSerializer.default.image(with: data, options: options)
    }
}

/// A provider that waits for a gate, then fails.
struct GatedFailingProvider: ImageDataProvider {
    let cacheKey: String
    let gate: TaskGate
    struct Failed: Error {}
    func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        Task {
            await gate.wait()
            handler(.failure(Failed()))
        }
    }
}

@Suite @MainActor struct ImageTargetLatestWinsTests {
    @Test func slowAThenFastBEndsWithB() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/a.png", .held(ViewKit.png(0), gate: gate))
            env.server.route("/b.png", .ok(ViewKit.png(1)))
            let urlA = env.server.url("/a.png"), urlB = env.server.url("/b.png")
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            view.kf.setImage(with: urlA, options: env.options) { a.record($0) }
            await env.server.waitUntilRequestCount(for: "/a.png", reaches: 1)
            view.kf.setImage(with: urlB, options: env.options) { b.record($0) }
            let bResult = await b.wait(for: 1)[0]
            #expect(bResult.image?.pixelWidth == 2)
            #expect(view.image?.pixelWidth == 2)
            #expect(view.kf.taskIdentifier == nil)

            gate.open()
            let aResult = await a.wait(for: 1)[0]
            let stale = try #require(aResult.notCurrent)
            #expect(stale.result?.image.pixelWidth == 1)
            #expect(stale.source == .network(urlA))
            #expect(aResult.error?.errorCode == 5002)
            #expect(aResult.error?.isNotCurrentTask == true)
            #expect(view.image?.pixelWidth == 2)
            #expect(!view.history.contains { $0?.pixelWidth == 1 })
            #expect(env.cache.retrieveImageInMemoryCache(forKey: urlA.cacheKey) == nil)
            #expect(env.cache.retrieveImageInMemoryCache(forKey: urlB.cacheKey)?.pixelWidth == 2)
            #expect(a.values.count == 1 && b.values.count == 1)
        }
    }

    @Test func supersededBeforeItsDiskReadEndsStartsNoDownload() async throws {
        try await ViewKit.run { env in
            env.server.route("/a.png", .ok(ViewKit.png(0)))
            env.server.route("/b.png", .ok(ViewKit.png(1)))
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            // A's disk read queues behind a write of the same key that waits for the test, so B
            // supersedes A before the read ends, whatever the threads' timing.
            let writeHeld = DispatchSemaphore(value: 0)
            env.cache.enqueueDiskWrite(for: env.server.url("/a.png").cacheKey) { writeHeld.wait() }
            view.kf.setImage(with: env.server.url("/a.png"), options: env.options) { a.record($0) }
            view.kf.setImage(with: env.server.url("/b.png"), options: env.options) { b.record($0) }
            _ = await b.wait(for: 1)
            writeHeld.signal()
            let aResult = await a.wait(for: 1)[0]
            #expect(aResult.notCurrent != nil)
            #expect(env.server.requestCount(for: "/a.png") == 0)
            #expect(view.image?.pixelWidth == 2)
        }
    }

    @Test func supersededWhileProcessingFromOriginalStartsNoWork() async throws {
        try await ViewKit.run { env in
            env.server.route("/a.png", .ok(ViewKit.png(4)))
            env.server.route("/b.png", .ok(ViewKit.png(1)))
            let urlA = env.server.url("/a.png")
            let processor = CountingProcessor("views.counting")
            // The original of A is cached; A with a processor would be made from it without network.
            _ = try await KingfisherManager(downloader: env.downloader, cache: env.cache)
                .retrieveImage(with: urlA, options: env.options)
            env.cache.clearMemoryCache()
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            // The original's decode waits until B has superseded A, whatever the threads' timing.
            let serializer = GatedSerializer()
            view.kf.setImage(with: urlA, options: env.options + [.processor(processor), .cacheSerializer(serializer)]) { a.record($0) }
            _ = await serializer.entered.wait(for: 1)
            view.kf.setImage(with: env.server.url("/b.png"), options: env.options) { b.record($0) }
            _ = await b.wait(for: 1)
            serializer.release.signal()
            #expect(await a.wait(for: 1)[0].notCurrent != nil)
            #expect(processor.runCount == 0)
            #expect(env.server.requestCount(for: "/a.png") == 1)
        }
    }

    @Test func supersededRequestIsNotRetried() async throws {
        try await ViewKit.run { env in
            env.server.route("/a.png", .status(500))
            env.server.route("/b.png", .ok(ViewKit.png(1)))
            let retry = GatedRetry()
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            view.kf.setImage(with: env.server.url("/a.png"), options: env.options + [.retryStrategy(retry)]) { a.record($0) }
            _ = await retry.asked.wait(for: 1)
            view.kf.setImage(with: env.server.url("/b.png"), options: env.options) { b.record($0) }
            retry.gate.open()
            let aResult = await a.wait(for: 1)[0]
            let stale = try #require(aResult.notCurrent)
            #expect(stale.error != nil)
            _ = await b.wait(for: 1)
            #expect(env.server.requestCount(for: "/a.png") == 1)
            #expect(retry.asked.values.count == 1)
        }
    }

    @Test func supersededRequestTriesNoAlternativeSource() async throws {
        try await ViewKit.run { env in
            env.server.route("/alt.png", .ok(ViewKit.png(3)))
            env.server.route("/b.png", .ok(ViewKit.png(1)))
            let gate = TaskGate()
            let provider = GatedFailingProvider(cacheKey: "gated-a", gate: gate)
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            let options = env.options + [.alternativeSources([.network(env.server.url("/alt.png"))])]
            view.kf.setImage(with: provider, options: options) { a.record($0) }
            await gate.waitUntilWaiting(count: 1)
            view.kf.setImage(with: env.server.url("/b.png"), options: env.options) { b.record($0) }
            _ = await b.wait(for: 1)
            gate.open()
            #expect(await a.wait(for: 1)[0].notCurrent != nil)
            #expect(env.server.requestCount(for: "/alt.png") == 0)
            #expect(view.image?.pixelWidth == 2)
        }
    }

    @Test func scrollingList() async throws {
        try await ViewKit.run(seconds: 60) { env in
            let urls = (0..<100).map { index -> URL in
                env.server.route("/s\(index).png", .ok(ViewKit.png(index)))
                return env.server.url("/s\(index).png")
            }
            let views = (0..<50).map { _ in TestImageView() }
            let indicators = views.map { view -> CountingIndicator in
                let indicator = CountingIndicator()
                view.kf.indicatorType = .custom(indicator: indicator)
                return indicator
            }
            let completions = Recorder<Int>()
            var counts = [Int](repeating: 0, count: 1_000)
            var last = [Int](repeating: -1, count: 50)
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            for call in 0..<1_000 {
                let target = call % 50
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let index = Int(seed >> 33) % 100
                last[target] = index
                views[target].kf.setImage(with: urls[index], options: env.options) { _ in
                    counts[call] += 1
                    completions.record(call)
                }
                if call % 97 == 0 { await Task.yield() }
            }
            _ = await completions.wait(for: 1_000)
            #expect(counts.allSatisfy { $0 == 1 })
            for (target, view) in views.enumerated() {
                #expect(view.image?.pixelWidth == last[target] + 1)
                #expect(view.kf.taskIdentifier == nil)
                #expect(indicators[target].running == 0)
                #expect(indicators[target].starts == 20)
            }
        }
    }
}
