import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// Cache behaviours checked against Kingfisher's own tests: file names, memory hits made with
/// other decoding choices, and the callback form of the asynchronous cache-type check.
@Suite struct CacheFidelityTests {
    static func hashedStorage() throws -> (DiskStorage.Backend<Data>, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-names-\(UUID().uuidString)")
        var config = DiskStorage.Config(name: "names", sizeLimit: 0, directory: folder)
        config.autoExtAfterHashedFileName = true
        return (try DiskStorage.Backend<Data>(config: config), folder)
    }

    @Test func aComputedKeyTakesItsExtensionFromBeforeTheFirstAt() throws {
        let (storage, folder) = try Self.hashedStorage()
        defer { try? FileManager.default.removeItem(at: folder) }
        let processed = "test.jpeg@com.onevcat.Kingfisher.DownsamplingImageProcessor"
        #expect(storage.cacheFileName(forKey: processed) == processed.kf.sha256 + ".jpeg")
        #expect(storage.cacheFileName(forKey: "test.gif") == "test.gif".kf.sha256 + ".gif")
        // An `@` in a URL's path: what precedes it has no extension, so the name has none.
        let atInPath = "https://t.example.net/57373197@300-1720981878.jpg"
        #expect(storage.cacheFileName(forKey: atInPath) == atInPath.kf.sha256)
        try storage.store(value: Data("1".utf8), forKey: atInPath)
        #expect(storage.isCached(forKey: atInPath))
        #expect(try storage.value(forKey: atInPath) == Data("1".utf8))
        #expect(storage.cacheFileName(forKey: "https://example.com/image.jpg?v=2") == "https://example.com/image.jpg?v=2".kf.sha256)
    }

    @Test func aMemoryHitMadeWithOtherDecodingChoicesIsRemadeFromItsBytes() async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/anim.gif", .ok(KingfisherFidelityTests.animatedGIF))
            let source = Source.network(server.url("/anim.gif"))
            let first = try await ManagerKit.retrieve(manager, source, [.onlyLoadFirstFrame]).get()
            #expect(first.image.frames.count == 1 && first.cacheType == .none)

            let full = try await ManagerKit.retrieve(manager, source).get()
            #expect(full.image.frames.count == 3)
            #expect(full.cacheType == .memory)

            let firstOnly = try await ManagerKit.retrieve(manager, source, [.onlyLoadFirstFrame]).get()
            #expect(firstOnly.image.frames.count == 1)
            #expect(firstOnly.cacheType == .memory)
            // A hit keeps the scale it was stored with, as in Kingfisher.
            let doubled = try await ManagerKit.retrieve(manager, source, [.scaleFactor(2)]).get()
            #expect(doubled.image.scale == 1 && doubled.image.frames.count == 3)
            #expect(doubled.cacheType == .memory)
            #expect(server.requestCount(for: "/anim.gif") == 1)
        }
    }

    @Test func aMemoryHitKeepsTheScaleItWasStoredWith() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await cache.store(TestImages.gradient(width: 4, height: 2), forKey: "still")
        let hit = try #require(cache.retrieveImageInMemoryCache(forKey: "still", options: [.scaleFactor(2)]))
        #expect(hit.scale == 1 && hit.size == CGSize(width: 4, height: 2))
        try await cache.store(TestImages.gradient(width: 4, height: 2).withScale(3), forKey: "triple")
        #expect(cache.retrieveImageInMemoryCache(forKey: "triple")?.scale == 3)
        #expect(cache.retrieveImageInMemoryCache(forKey: "triple", options: [.scaleFactor(2)])?.scale == 3)
        // A disk hit is decoded anew, at the scale the request asks for.
        cache.clearMemoryCache()
        let fromDisk = try await cache.retrieveImage(forKey: "triple", options: [.scaleFactor(2)])
        #expect(fromDisk.image?.scale == 2)
    }

    @Test func aMemoryHitThroughTheManagerKeepsItsStoredScale() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/scaled.png")
            let first = try await manager.retrieveImage(with: source, options: [.scaleFactor(2)])
            #expect(first.image.scale == 2 && first.cacheType == .none)
            let again = try await manager.retrieveImage(with: source, options: [.scaleFactor(3)])
            #expect(again.cacheType == .memory && again.image.scale == 2)
        }
    }

    @Test func imageCachedTypeAsyncAnswersAHandlerOnItsQueue() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        let queue = DispatchQueue(label: "kf.test.cached-type")
        let marker = DispatchSpecificKey<Int>()
        queue.setSpecific(key: marker, value: 3)
        func ask(_ key: String) async -> (CacheType, Bool) {
            await withCheckedContinuation { continuation in
                cache.imageCachedTypeAsync(forKey: key, callbackQueue: .dispatch(queue)) { type in
                    continuation.resume(returning: (type, DispatchQueue.getSpecific(key: marker) == 3))
                }
            }
        }
        #expect(await ask("k") == (.none, true))
        try await cache.store(TestImages.gradient(width: 2, height: 2), forKey: "k")
        #expect(await ask("k") == (.memory, true))
        cache.clearMemoryCache()
        #expect(await ask("k") == (.disk, true))
    }
}

/// A superseded request costs no decoding and carries no image.
@Suite @MainActor struct StaleDiskReadTests {
    /// The default serializer, counting its decodes.
    final class CountingSerializer: CacheSerializer {
        private let count = Mutex(0)
        var decodes: Int { count.withLock { $0 } }
        func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
            DefaultCacheSerializer.default.data(with: image, original: original)
        }
        func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            count.withLock { $0 += 1 }
            return DefaultCacheSerializer.default.image(with: data, options: options)
        }
    }

    @Test func aRequestSupersededDuringItsDiskReadGetsNoImage() async throws {
        try await ViewKit.run { env in
            env.server.route("/a.png", .ok(ViewKit.png(0)))
            env.server.route("/b.png", .ok(ViewKit.png(1)))
            let urlA = env.server.url("/a.png")
            _ = try await KingfisherManager(downloader: env.downloader, cache: env.cache)
                .retrieveImage(with: urlA, options: env.options + [.waitForCache])
            env.cache.clearMemoryCache()
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            let serializer = CountingSerializer()
            // A's read queues behind a write the test holds until B has superseded A.
            let held = DispatchSemaphore(value: 0)
            env.cache.enqueueDiskWrite(for: urlA.cacheKey) { held.wait() }
            view.kf.setImage(with: urlA, options: env.options + [.cacheSerializer(serializer)]) { a.record($0) }
            view.kf.setImage(with: env.server.url("/b.png"), options: env.options) { b.record($0) }
            _ = await b.wait(for: 1)
            held.signal()
            let stale = try #require(await a.wait(for: 1)[0].notCurrent)
            #expect(stale.result == nil)
            #expect(serializer.decodes == 0)
            #expect(env.server.requestCount(for: "/a.png") == 1)
            #expect(view.image?.pixelWidth == 2)
        }
    }
}
