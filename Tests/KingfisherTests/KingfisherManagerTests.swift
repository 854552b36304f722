import Foundation
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

/// Shared helpers of the manager suites.
enum ManagerKit {
    /// Runs `body` with a fresh server, downloader, cache (in a temporary folder) and manager,
    /// shutting them down and removing the folder afterwards.
    static func run(
        seconds: Double = 20,
        _ body: @escaping @Sendable (TestHTTPServer, KingfisherManager, ImageCache) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-manager-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try ImageCache(name: "manager", cacheDirectoryURL: folder)
        try await DownloaderKit.run(seconds: seconds) { server, downloader in
            try await body(server, KingfisherManager(downloader: downloader, cache: cache), cache)
        }
    }

    /// A fresh cache in its own temporary folder; the caller removes the folder.
    static func makeCache() throws -> (ImageCache, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-manager-\(UUID().uuidString)")
        return (try ImageCache(name: "extra", cacheDirectoryURL: folder), folder)
    }

    /// The callback API, awaited.
    static func retrieve(
        _ manager: KingfisherManager, _ source: Source, _ options: KingfisherOptionsInfo? = nil
    ) async -> Result<RetrieveImageResult, KingfisherError> {
        await withCheckedContinuation { continuation in
            manager.retrieveImage(with: source, options: options) { continuation.resume(returning: $0) }
        }
    }

    /// A 16×12 PNG served at `path`, and its network source.
    static func serve(_ server: TestHTTPServer, _ path: String) -> Source {
        server.route(path, .ok(DownloaderKit.png))
        return .network(server.url(path))
    }
}

extension Result where Success == RetrieveImageResult, Failure == KingfisherError {
    var cacheType: CacheType? { (try? get())?.cacheType }
    var image: KFCrossPlatformImage? { (try? get())?.image }
}

/// A processor that resizes to 8×6, with a stable identifier.
let halfSize: any ImageProcessor = ResizingImageProcessor(referenceSize: CGSize(width: 8, height: 6))

@Suite struct KingfisherManagerLadderTests {
    @Test(arguments: [false, true])
    func ladderWithCallbacks(processed: Bool) async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/a.png")
            let options: KingfisherOptionsInfo = processed ? [.processor(halfSize)] : []
            let first = await ManagerKit.retrieve(manager, source, options)
            #expect(first.cacheType == CacheType.none)
            #expect(first.image?.pixelWidth == (processed ? 8 : 16))
            #expect(await ManagerKit.retrieve(manager, source, options).cacheType == .memory)
            cache.clearMemoryCache()
            let fromDisk = await ManagerKit.retrieve(manager, source, options)
            #expect(fromDisk.cacheType == .disk)
            #expect(fromDisk.image?.pixelWidth == (processed ? 8 : 16))
            #expect(await ManagerKit.retrieve(manager, source, options).cacheType == .memory)
            await cache.clearCache()
            #expect(await ManagerKit.retrieve(manager, source, options).cacheType == CacheType.none)
            #expect(server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test(arguments: [false, true])
    func ladderWithAsync(processed: Bool) async throws {
        try await ManagerKit.run { server, manager, cache in
            server.route("/a.png", .ok(DownloaderKit.png))
            let url = server.url("/a.png")
            let options: KingfisherOptionsInfo = processed ? [.processor(halfSize)] : []
            let fetched = try await manager.retrieveImage(with: url, options: options)
            #expect(fetched.cacheType == .none)
            let hit = try await manager.retrieveImage(with: url, options: options)
            #expect(hit.cacheType == .memory)
            cache.clearMemoryCache()
            let fromDisk = try await manager.retrieveImage(with: url, options: options)
            #expect(fromDisk.cacheType == .disk)
            #expect(fromDisk.image.pixelWidth == (processed ? 8 : 16))
            await cache.clearCache()
            let refetched = try await manager.retrieveImage(with: url, options: options)
            #expect(refetched.cacheType == .none)
            #expect(server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test func processedFromCachedOriginalWithoutNetwork() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/o.png")
            #expect(await ManagerKit.retrieve(manager, source).cacheType == CacheType.none)
            cache.clearMemoryCache()
            let processed = await ManagerKit.retrieve(manager, source, [.processor(halfSize), .waitForCache])
            #expect(processed.cacheType == CacheType.none)
            #expect(processed.image?.pixelWidth == 8)
            #expect(server.requestCount(for: "/o.png") == 1)
            // The processed image is now cached under key@identifier, in memory and on disk.
            let key = source.cacheKey
            #expect(cache.imageCachedType(forKey: key, processorIdentifier: halfSize.identifier) == .memory)
            cache.clearMemoryCache()
            #expect(cache.imageCachedType(forKey: key, processorIdentifier: halfSize.identifier) == .disk)
            #expect(await ManagerKit.retrieve(manager, source, [.processor(halfSize)]).cacheType == .disk)
            #expect(server.requestCount(for: "/o.png") == 1)
        }
    }

    @Test func cacheOriginalImageLetsAnotherProcessorSkipTheNetwork() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/c.png")
            let (originals, folder) = try ManagerKit.makeCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            let first = await ManagerKit.retrieve(
                manager, source, [.processor(halfSize), .cacheOriginalImage, .originalCache(originals), .waitForCache])
            #expect(first.image?.pixelWidth == 8)
            #expect(originals.diskStorage.isCached(forKey: source.cacheKey))
            #expect(!cache.diskStorage.isCached(forKey: source.cacheKey))
            let other = ResizingImageProcessor(referenceSize: CGSize(width: 4, height: 3))
            let second = await ManagerKit.retrieve(manager, source, [.processor(other), .originalCache(originals)])
            #expect(second.image?.pixelWidth == 4)
            #expect(second.cacheType == CacheType.none)
            #expect(server.requestCount(for: "/c.png") == 1)
        }
    }

    @Test func resultCarriesSourcesAndData() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/d.png")
            let fetched = try await ManagerKit.retrieve(manager, source).get()
            #expect(fetched.data() == DownloaderKit.png)
            #expect(fetched.source.cacheKey == source.cacheKey)
            #expect(fetched.originalSource.cacheKey == source.cacheKey)
            let hit = try await ManagerKit.retrieve(manager, source).get()
            #expect(hit.cacheType == .memory)
            // A hit's data are the cache serializer's bytes of the image (PNG for a PNG original
            // is not known here: no original, so PNG), which decode to the same pixels.
            let hitData = try #require(hit.data())
            #expect(hitData.kf.imageFormat == .PNG)
            #expect(try KFCrossPlatformImage(data: hitData) == hit.image)
        }
    }

    @Test func returnedTaskIsNilOnlyForAMemoryHit() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/t.png")
            let done = Recorder<CacheType?>()
            let task = manager.retrieveImage(with: source) { done.record($0.cacheType) }
            #expect(task != nil)
            _ = await done.wait(for: 1)
            let hit = manager.retrieveImage(with: source) { done.record($0.cacheType) }
            #expect(hit == nil)
            #expect(await done.wait(for: 2).last == .memory)
        }
    }

    @Test func defaultOptionsAreMergedAndTheCallWins() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/m.png")
            manager.defaultOptions = [.processor(halfSize), .waitForCache]
            #expect(await ManagerKit.retrieve(manager, source).image?.pixelWidth == 8)
            #expect(cache.isCached(forKey: source.cacheKey, processorIdentifier: halfSize.identifier))
            let own = ResizingImageProcessor(referenceSize: CGSize(width: 4, height: 3))
            #expect(await ManagerKit.retrieve(manager, source, [.processor(own)]).image?.pixelWidth == 4)
        }
    }
}

@Suite struct KingfisherManagerSetupTests {
    @Test func sharedManagerUsesTheDefaults() {
        #expect(KingfisherManager.shared.cache === ImageCache.default)
        #expect(KingfisherManager.shared.downloader === ImageDownloader.default)
    }

    @Test func targetCacheOptionReceivesTheImage() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/target.png")
            let (other, folder) = try ManagerKit.makeCache()
            defer { try? FileManager.default.removeItem(at: folder) }
            _ = await ManagerKit.retrieve(manager, source, [.targetCache(other), .waitForCache])
            #expect(other.imageCachedType(forKey: source.cacheKey) == .memory)
            #expect(cache.imageCachedType(forKey: source.cacheKey) == .none)
            #expect(await ManagerKit.retrieve(manager, source, [.targetCache(other)]).cacheType == .memory)
        }
    }

    @Test func progressReachesTheCallerOnItsQueue() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/progress.png")
            let queue = DispatchQueue(label: "kf.test.progress")
            queue.setSpecific(key: queueMark, value: true)
            let reports = Recorder<(Int64, Int64, Bool)>()
            let done = Recorder<Bool>()
            manager.retrieveImage(
                with: source, options: [.callbackQueue(.dispatch(queue))],
                progressBlock: { received, total in
                    reports.record((received, total, DispatchQueue.getSpecific(key: queueMark) == true))
                }
            ) { result in done.record(result.cacheType == CacheType.none) }
            #expect(await done.wait(for: 1) == [true])
            let last = try #require(reports.values.last)
            #expect(last.0 == Int64(DownloaderKit.png.count))
            #expect(reports.values.allSatisfy { $0.2 })
        }
    }
}
