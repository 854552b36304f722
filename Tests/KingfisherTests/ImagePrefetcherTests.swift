import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

@Suite struct ImagePrefetcherTests {
    /// The final lists of one prefetch, as cache keys, and how many progress reports came.
    struct Outcome: Sendable {
        var skipped: Set<String>
        var failed: Set<String>
        var completed: Set<String>
        var progressReports: Int
        var lastProgressTotal: Int
    }

    static func temporaryCache() throws -> (ImageCache, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-\(UUID().uuidString)")
        return (try ImageCache(name: "prefetch", cacheDirectoryURL: folder), folder)
    }

    /// Runs a prefetcher made by `make` to its end and returns its outcome.
    static func prefetch(
        _ make: @escaping @Sendable (@escaping PrefetcherSourceProgressBlock, @escaping PrefetcherSourceCompletionHandler) -> ImagePrefetcher,
        configure: @Sendable (ImagePrefetcher) -> Void = { _ in }
    ) async -> Outcome {
        let progress = Mutex((count: 0, total: 0))
        return await withCheckedContinuation { continuation in
            let prefetcher = make({ skipped, failed, completed in
                progress.withLock { $0 = ($0.count + 1, skipped.count + failed.count + completed.count) }
            }, { skipped, failed, completed in
                let reports = progress.withLock { $0 }
                continuation.resume(returning: Outcome(
                    skipped: Set(skipped.map(\.cacheKey)), failed: Set(failed.map(\.cacheKey)),
                    completed: Set(completed.map(\.cacheKey)), progressReports: reports.count,
                    lastProgressTotal: reports.total))
            })
            configure(prefetcher)
            prefetcher.start()
        }
    }

    @Test func countsSkippedFailedAndCompletedExactly() async throws {
        try await DownloaderKit.run { server, downloader in
            let (cache, folder) = try Self.temporaryCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            for name in ["mem", "disk", "new1", "new2"] { server.route("/\(name)", .ok(DownloaderKit.png)) }
            server.route("/missing", .status(404))
            let image = try KFCrossPlatformImage(data: DownloaderKit.png)
            try await cache.store(image, original: DownloaderKit.png, forKey: server.url("/disk").cacheKey)
            cache.clearMemoryCache()
            try await cache.store(image, forKey: server.url("/mem").cacheKey, options: KingfisherParsedOptionsInfo(nil), toDisk: false)

            let urls = ["mem", "disk", "new1", "new2", "missing"].map { server.url("/\($0)") }
            let outcome = await Self.prefetch { progress, completion in
                ImagePrefetcher(sources: urls.map { .network($0) }, manager: manager,
                                progressBlock: progress, completionHandler: completion)
            }
            #expect(outcome.skipped == [urls[0].cacheKey, urls[1].cacheKey])
            #expect(outcome.completed == [urls[2].cacheKey, urls[3].cacheKey])
            #expect(outcome.failed == [urls[4].cacheKey])
            #expect(outcome.progressReports == 5 && outcome.lastProgressTotal == 5)
            #expect(server.requestCount(for: "/mem") == 0 && server.requestCount(for: "/disk") == 0)
            #expect(server.requestCount(for: "/new1") == 1 && server.requestCount(for: "/new2") == 1)
            // Completed means stored on disk already: the prefetcher waits for the cache write.
            #expect(cache.diskStorage.isCached(forKey: urls[2].cacheKey))
            #expect(cache.diskStorage.isCached(forKey: urls[3].cacheKey))
            #expect(cache.imageCachedType(forKey: urls[1].cacheKey) == .disk)
        }
    }

    @Test func reportsEachSourcesEndWithItsReasonBeforeTheProgressThatCountsIt() async throws {
        try await DownloaderKit.run { server, downloader in
            let (cache, folder) = try Self.temporaryCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            server.route("/new", .ok(DownloaderKit.png))
            server.route("/disk", .ok(DownloaderKit.png))
            server.route("/missing", .status(404))
            let image = try KFCrossPlatformImage(data: DownloaderKit.png)
            try await cache.store(image, original: DownloaderKit.png, forKey: server.url("/disk").cacheKey)
            cache.clearMemoryCache()
            try await cache.store(image, forKey: server.url("/mem").cacheKey, options: KingfisherParsedOptionsInfo(nil), toDisk: false)

            let names = ["mem", "disk", "new", "missing"]
            let urls = names.map { server.url("/\($0)") }
            // Each end is logged with the number of sources the progress had counted when it came,
            // which must be the number of ends before it: end, its progress, the next end, ...
            let log = Mutex<(ends: [String: (PrefetchOutcome, Int)], counted: Int, calls: Int)>(([:], 0, 0))
            _ = await Self.prefetch({ progress, completion in
                ImagePrefetcher(sources: urls.map { .network($0) }, manager: manager, progressBlock: { skipped, failed, completed in
                    log.withLock { $0.counted = skipped.count + failed.count + completed.count }
                    progress(skipped, failed, completed)
                }, completionHandler: completion)
            }, configure: { prefetcher in
                prefetcher.sourceFinishedBlock = { source, outcome, duration in
                    #expect(duration >= .zero)
                    log.withLock { $0.ends[source.cacheKey] = (outcome, $0.counted - $0.calls); $0.calls += 1 }
                }
            })
            let ends = log.withLock { $0 }
            #expect(ends.calls == 4 && ends.ends.count == 4)
            #expect(ends.ends.values.allSatisfy { $0.1 == 0 })
            guard case .skipped(.memory)? = ends.ends[urls[0].cacheKey]?.0 else {
                Issue.record("mem: \(String(describing: ends.ends[urls[0].cacheKey]))"); return
            }
            guard case .skipped(.disk)? = ends.ends[urls[1].cacheKey]?.0 else {
                Issue.record("disk: \(String(describing: ends.ends[urls[1].cacheKey]))"); return
            }
            guard case .completed? = ends.ends[urls[2].cacheKey]?.0 else {
                Issue.record("new: \(String(describing: ends.ends[urls[2].cacheKey]))"); return
            }
            guard case .failed(let error)? = ends.ends[urls[3].cacheKey]?.0,
                  case .responseError(.invalidHTTPStatusCode) = error else {
                Issue.record("missing: \(String(describing: ends.ends[urls[3].cacheKey]))"); return
            }
        }
    }

    @Test func aSecondRunSkipsEverythingAndForceRefreshSkipsNothing() async throws {
        try await DownloaderKit.run { server, downloader in
            let (cache, folder) = try Self.temporaryCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            let urls = (0..<4).map { server.url("/img\($0)") }
            for index in 0..<4 { server.route("/img\(index)", .ok(DownloaderKit.png)) }
            let processor = DownsamplingImageProcessor(size: CGSize(width: 8, height: 8))
            let make: @Sendable ([KingfisherOptionsInfoItem]) -> @Sendable (@escaping PrefetcherSourceProgressBlock, @escaping PrefetcherSourceCompletionHandler) -> ImagePrefetcher = { options in
                { progress, completion in
                    ImagePrefetcher(sources: urls.map { .network($0) }, options: [.processor(processor)] + options,
                                    manager: manager, progressBlock: progress, completionHandler: completion)
                }
            }
            let first = await Self.prefetch(make([]))
            #expect(first.completed.count == 4 && first.skipped.isEmpty && first.failed.isEmpty)
            #expect(cache.imageCachedType(forKey: urls[0].cacheKey, processorIdentifier: processor.identifier).cached)

            let second = await Self.prefetch(make([]))
            #expect(second.skipped.count == 4 && second.completed.isEmpty && second.failed.isEmpty)
            #expect((0..<4).allSatisfy { server.requestCount(for: "/img\($0)") == 1 })

            let forced = await Self.prefetch(make([.forceRefresh]))
            #expect(forced.completed.count == 4 && forced.skipped.isEmpty)
            #expect((0..<4).allSatisfy { server.requestCount(for: "/img\($0)") == 2 })
        }
    }

    @Test func alsoPrefetchToMemoryLoadsDiskHitsIntoMemory() async throws {
        let (cache, folder) = try Self.temporaryCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let image = try KFCrossPlatformImage(data: DownloaderKit.png)
        for key in ["a", "b"] {
            try await cache.store(image, original: DownloaderKit.png, forKey: key)
        }
        cache.clearMemoryCache()
        let sources: [Source] = ["a", "b"].map { .provider(RawImageDataProvider(data: DownloaderKit.png, cacheKey: $0)) }

        let plain = await Self.prefetch { progress, completion in
            ImagePrefetcher(sources: [sources[0]], manager: manager, progressBlock: progress, completionHandler: completion)
        }
        #expect(plain.skipped == ["a"])
        #expect(cache.imageCachedType(forKey: "a") == .disk)

        let toMemory = await Self.prefetch({ progress, completion in
            ImagePrefetcher(sources: [sources[1]], manager: manager, progressBlock: progress, completionHandler: completion)
        }, configure: { $0.alsoPrefetchToMemory = true })
        #expect(toMemory.skipped == ["b"] && toMemory.completed.isEmpty)
        #expect(cache.imageCachedType(forKey: "b") == .memory)
    }

    @Test func neverRunsMoreThanMaxConcurrentDownloads() async throws {
        try await DownloaderKit.run { server, downloader in
            let (cache, folder) = try Self.temporaryCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            let gate = TestGate()
            for index in 0..<6 { server.route("/held\(index)", .held(DownloaderKit.png, gate: gate)) }
            let urls = (0..<6).map { server.url("/held\($0)") }
            let finished = Mutex<CheckedContinuation<[URL], Never>?>(nil)
            let prefetcher = ImagePrefetcher(urls: urls, manager: manager, completionHandler: { _, _, completed in
                finished.withLock { $0.take() }?.resume(returning: completed.map(\.downloadURL))
            })
            #expect(prefetcher.maxConcurrentDownloads == 5)
            prefetcher.maxConcurrentDownloads = 2
            async let completed = withCheckedContinuation { continuation in
                finished.withLock { $0 = continuation }
                prefetcher.start()
            }
            await gate.waitUntilWaiting(count: 2)
            // Nothing can finish while the gate is shut, so no third retrieval may have begun.
            #expect(prefetcher.state.withLock { ($0.active.count, $0.nextIndex) } == (2, 2))
            gate.open()
            #expect(Set(await completed) == Set(urls))
        }
    }

    @Test func stopFailsWhatIsLeftAndCompletesOnce() async throws {
        try await DownloaderKit.run { server, downloader in
            let (cache, folder) = try Self.temporaryCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            let gate = TestGate()
            for index in 0..<4 { server.route("/held\(index)", .held(DownloaderKit.png, gate: gate)) }
            let urls = (0..<4).map { server.url("/held\($0)") }
            let calls = Mutex(0)
            let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<(Int, Int, Int), Never>) in
                let observed = ImagePrefetcher(urls: urls, manager: manager, completionHandler: { skipped, failed, completed in
                    if calls.withLock({ $0 += 1; return $0 }) == 1 {
                        continuation.resume(returning: (skipped.count, failed.count, completed.count))
                    }
                })
                observed.maxConcurrentDownloads = 2
                observed.start()
                Task {
                    await gate.waitUntilWaiting(count: 2)
                    observed.stop()
                    observed.stop()
                    observed.start()
                }
            }
            #expect(outcome == (0, 4, 0))
            gate.open()
            // A fresh prefetch of the same URLs drains the server; the stopped one stays silent.
            let after = await Self.prefetch { _, completion in
                ImagePrefetcher(sources: urls.map { .network($0) }, manager: manager, completionHandler: completion)
            }
            #expect(after.failed.isEmpty)
            #expect(calls.withLock { $0 } == 1)
        }
    }

    @Test func anEmptyListCompletesAtOnce() async {
        let outcome = await Self.prefetch { progress, completion in
            ImagePrefetcher(sources: [], manager: KingfisherManager(downloader: .default, cache: .default),
                            progressBlock: progress, completionHandler: completion)
        }
        #expect(outcome.skipped.isEmpty && outcome.failed.isEmpty && outcome.completed.isEmpty)
        #expect(outcome.progressReports == 1)
    }

    /// The thread whose source ends the prefetch can queue its report before that of a source
    /// which ended just earlier on another thread; the completion still lists both.
    @Test func theCompletionWaitsForAReportQueuedAfterTheLastOne() {
        let sources: [Source] = [.network(URL(fileURLWithPath: "/a.png")), .network(URL(fileURLWithPath: "/b.png"))]
        let completions = Mutex<[(completed: Int, progress: Int)]>([])
        let progress = Mutex(0)
        let prefetcher = ImagePrefetcher(
            sources: sources, options: [.callbackQueue(.untouch)],
            progressBlock: { _, _, _ in progress.withLock { $0 += 1 } },
            completionHandler: { _, _, completed in
                let reports = progress.withLock { $0 }
                completions.withLock { $0.append((completed.count, reports)) }
            })
        prefetcher.report([(1, .completed)], isFinal: true, finished: nil)
        #expect(completions.withLock { $0 }.isEmpty)
        prefetcher.report([(0, .completed)], isFinal: false, finished: nil)
        let delivered = completions.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(delivered.first?.completed == 2 && delivered.first?.progress == 2)
    }

    @Test func aThousandPrefetchersAtOnceAllComplete() async throws {
        try await DownloaderKit.run(seconds: 60) { server, downloader in
            let (cache, folder) = try Self.temporaryCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = KingfisherManager(downloader: downloader, cache: cache)
            for index in 0..<10 { server.route("/p\(index)", .ok(DownloaderKit.png)) }
            let count = 1000
            let tally = Mutex((finished: 0, items: 0, wrong: 0))
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                for index in 0..<count {
                    let sources: [Source] = [
                        .network(server.url("/p\(index % 10)")),
                        .network(server.url("/p\((index + 3) % 10)")),
                        .provider(RawImageDataProvider(data: DownloaderKit.png, cacheKey: "raw-\(index % 50)")),
                    ]
                    let prefetcher = ImagePrefetcher(sources: sources, manager: manager, completionHandler: { skipped, failed, completed in
                        let done = tally.withLock { tally -> Bool in
                            tally.finished += 1
                            tally.items += skipped.count + failed.count + completed.count
                            if !failed.isEmpty { tally.wrong += 1 }
                            return tally.finished == count
                        }
                        if done { continuation.resume() }
                    })
                    prefetcher.start()
                }
            }
            #expect(tally.withLock { $0 }.items == 3 * count)
            #expect(tally.withLock { $0 }.wrong == 0)
        }
    }
}
