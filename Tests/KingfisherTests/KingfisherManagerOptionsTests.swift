import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// A provider that always fails.
struct FailingProvider: ImageDataProvider {
    struct Failure: Error {}
    let cacheKey: String
    func data() async throws -> Data { throw Failure() }
}

/// A retry strategy that retries at once and records the source of each context.
final class RecordingRetry: RetryStrategy {
    let sources = Mutex<[String?]>([])
    func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        sources.withLock { $0.append(context.source?.cacheKey) }
        retryHandler(context.retriedCount < 2 ? .retry(userInfo: nil) : .stop)
    }
}

@Suite struct KingfisherManagerOptionsTests {
    @Test func forceRefreshDownloadsAgain() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/f.png")
            _ = await ManagerKit.retrieve(manager, source)
            #expect(await ManagerKit.retrieve(manager, source, [.forceRefresh]).cacheType == CacheType.none)
            #expect(server.requestCount(for: "/f.png") == 2)
        }
    }

    @Test func fromMemoryCacheOrRefreshSkipsTheDisk() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/r.png")
            _ = await ManagerKit.retrieve(manager, source, [.waitForCache])
            #expect(await ManagerKit.retrieve(manager, source, [.fromMemoryCacheOrRefresh]).cacheType == .memory)
            cache.clearMemoryCache()
            #expect(await ManagerKit.retrieve(manager, source, [.fromMemoryCacheOrRefresh]).cacheType == CacheType.none)
            #expect(server.requestCount(for: "/r.png") == 2)
        }
    }

    @Test func onlyFromCacheMissFailsWithoutNetwork() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/only.png")
            let miss = await ManagerKit.retrieve(manager, source, [.onlyFromCache])
            guard case .failure(.cacheError(reason: .imageNotExisting(let key))) = miss else {
                Issue.record("expected imageNotExisting, got \(miss)")
                return
            }
            #expect(key == source.cacheKey)
            #expect(server.requestCount(for: "/only.png") == 0)
            _ = await ManagerKit.retrieve(manager, source, [.waitForCache])
            cache.clearMemoryCache()
            #expect(await ManagerKit.retrieve(manager, source, [.onlyFromCache]).cacheType == .disk)
            #expect(server.requestCount(for: "/only.png") == 1)
        }
    }

    @Test func cacheMemoryOnlyNeverWritesTheDisk() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/mem.png")
            _ = await ManagerKit.retrieve(manager, source, [.cacheMemoryOnly, .waitForCache])
            #expect(cache.imageCachedType(forKey: source.cacheKey) == .memory)
            cache.clearMemoryCache()
            #expect(cache.imageCachedType(forKey: source.cacheKey) == .none)
        }
    }

    @Test func waitForCacheCallsBackAfterTheDiskWrite() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/w.png")
            let onDisk = await withCheckedContinuation { continuation in
                manager.retrieveImage(with: source, options: [.waitForCache, .processor(halfSize)]) { _ in
                    continuation.resume(returning: cache.diskStorage.isCached(
                        forKey: source.cacheKey.computedKey(with: halfSize.identifier)))
                }
            }
            #expect(onDisk)
        }
    }

    @Test func loadDiskFileSynchronouslyAnswersBeforeReturning() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/s.png")
            _ = await ManagerKit.retrieve(manager, source, [.waitForCache])
            cache.clearMemoryCache()
            let answered = Mutex<CacheType?>(nil)
            let task = manager.retrieveImage(with: source, options: [.loadDiskFileSynchronously]) { result in
                answered.withLock { $0 = result.cacheType }
            }
            #expect(answered.withLock { $0 } == .disk)
            #expect(task == nil)
        }
    }

    @Test func alternativeSourceServesAfterAFailure() async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/missing.png", .status(404))
            let backup = ManagerKit.serve(server, "/backup.png")
            let updated = Recorder<Bool>()
            let result = await withCheckedContinuation { continuation in
                manager.retrieveImage(
                    with: .network(server.url("/missing.png")), options: [.alternativeSources([backup])],
                    downloadTaskUpdated: { updated.record($0 != nil) }
                ) { continuation.resume(returning: $0) }
            }
            let value = try result.get()
            #expect(value.source.cacheKey == backup.cacheKey)
            #expect(value.originalSource.cacheKey == server.url("/missing.png").cacheKey)
            #expect(updated.values == [true])
        }
    }

    @Test func allAlternativesFailingListsEachSource() async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/x.png", .status(404))
            server.route("/y.png", .status(500))
            let failing = RawImageDataProvider(data: Data([1, 2, 3]), cacheKey: "junk")
            let result = await ManagerKit.retrieve(
                manager, .network(server.url("/x.png")),
                [.alternativeSources([.network(server.url("/y.png")), .provider(failing)])])
            guard case .failure(.imageSettingError(reason: .alternativeSourcesExhausted(let failures))) = result else {
                Issue.record("expected alternativeSourcesExhausted, got \(result)")
                return
            }
            #expect(failures.map(\.source.cacheKey) == [server.url("/x.png").absoluteString, server.url("/y.png").absoluteString, "junk"])
            #expect(failures[0].error.isInvalidResponseStatusCode)
            #expect(failures[1].error.isInvalidResponseStatusCode)
            guard case .processorError = failures[2].error else {
                Issue.record("expected a processing failure for undecodable bytes, got \(failures[2].error)")
                return
            }
        }
    }

    @Test func retriesGoThroughTheManagerWithTheSource() async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/flaky.png", [.status(503), .status(503), .ok(DownloaderKit.png)])
            let strategy = RecordingRetry()
            let source = Source.network(server.url("/flaky.png"))
            let result = await ManagerKit.retrieve(manager, source, [.retryStrategy(strategy)])
            #expect(result.cacheType == CacheType.none)
            #expect(server.requestCount(for: "/flaky.png") == 3)
            #expect(strategy.sources.withLock { $0 } == [source.cacheKey, source.cacheKey])
        }
    }

    @Test func imageModifierAppliesEveryTimeAndIsNotCached() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/mod.png")
            let modifier = AnyImageModifier { $0.withScale(3) }
            #expect(await ManagerKit.retrieve(manager, source, [.imageModifier(modifier)]).image?.scale == 3)
            #expect(await ManagerKit.retrieve(manager, source, [.imageModifier(modifier)]).image?.scale == 3)
            #expect(cache.retrieveImageInMemoryCache(forKey: source.cacheKey)?.scale == 1)
        }
    }

    @Test func scaleFactorAndFirstFrameReachTheDecoder() async throws {
        try await ManagerKit.run { server, manager, _ in
            let frames = [TestImages.gradientFrame(width: 6, height: 4), TestImages.gradientFrame(width: 6, height: 4, seed: 9)]
            let animated = try #require(KFCrossPlatformImage(frames: frames))
            server.route("/anim.gif", .ok(try animated.encoded(as: .GIF)))
            let source = Source.network(server.url("/anim.gif"))
            let full = try await manager.retrieveImage(with: source, options: [.scaleFactor(2)])
            #expect(full.image.scale == 2)
            #expect(full.image.frames.count == 2)
            let first = try await manager.retrieveImage(with: source, options: [.onlyLoadFirstFrame, .forceRefresh])
            #expect(first.image.frames.count == 1)
        }
    }

    @Test func expirationsReachTheStorages() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/exp.png")
            _ = await ManagerKit.retrieve(manager, source, [.memoryCacheExpiration(.expired), .waitForCache])
            #expect(await ManagerKit.retrieve(manager, source).cacheType == .disk)
            await cache.clearCache()
            _ = await ManagerKit.retrieve(manager, source, [.diskCacheExpiration(.expired), .waitForCache])
            cache.clearMemoryCache()
            #expect(await ManagerKit.retrieve(manager, source).cacheType == CacheType.none)
            #expect(server.requestCount(for: "/exp.png") == 3)
        }
    }

    @Test func providersAndFileURLsNeedNoNetwork() async throws {
        try await ManagerKit.run { _, manager, _ in
            let raw = RawImageDataProvider(data: DownloaderKit.png, cacheKey: "raw")
            let fetched = try await manager.retrieveImage(with: .provider(raw))
            #expect(fetched.cacheType == .none)
            let hit = try await manager.retrieveImage(with: .provider(raw))
            #expect(hit.cacheType == .memory)
            let base64 = Base64ImageDataProvider(base64String: DownloaderKit.png.base64EncodedString(), cacheKey: "b64")
            let decoded = try await manager.retrieveImage(with: .provider(base64))
            #expect(decoded.image.pixelWidth == 16)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("kf-manager-\(UUID().uuidString).png")
            try DownloaderKit.png.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = try await manager.retrieveImage(with: file)
            #expect(fromFile.image.pixelWidth == 16)
            #expect(fromFile.source.asProvider is LocalFileImageDataProvider)
        }
    }

    @Test func providerErrorsAreDataProviderErrors() async throws {
        try await ManagerKit.run { _, manager, _ in
            let bad = FailingProvider(cacheKey: "bad")
            let result = await ManagerKit.retrieve(manager, .provider(bad))
            guard case .failure(.imageSettingError(reason: .dataProviderError(let provider, _))) = result else {
                Issue.record("expected dataProviderError, got \(result)")
                return
            }
            #expect(provider.cacheKey == "bad")
        }
    }
}
