import Foundation
import KingfisherTestServer
import Synchronization
import Testing
import Kingfisher

// Code written as a Kingfisher user writes it, against the names restored from Kingfisher 8.11's
// General, Cache, Image and Utility files: it must compile with `import Kingfisher` alone, and each
// test checks what the code did. Deeper checks of each behaviour are in CacheRestoredAPITests,
// ImageRestoredAPITests and ThumbnailImageDataProviderTests.

/// An owner for `Delegate` blocks, as a view controller would be.
private final class Owner: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

@Suite struct KingfisherAPISurfaceGeneralTests {
    @Test func delegatesCallTheirBlockWhileTheOwnerLives() async {
        let delegate = Delegate<Int, String>()
        #expect(!delegate.isSet && delegate.call(1) == nil)
        var owner: Owner? = Owner(name: "a")
        if let owner {
            delegate.delegate(on: owner) { owner, value in "\(owner.name)\(value)" }
            delegate.delegate(on: owner) { (owner: Owner, value: Int) async -> String in "\(owner.name)-async-\(value)" }
        }
        #expect(delegate.isSet && delegate.call(2) == "a2" && delegate(3) == "a3")
        #expect(await delegate.callAsync(4) == "a-async-4")
        owner = nil
        #expect(delegate.call(5) == nil)
        #expect(await delegate.callAsync(6) == nil)

        let ping = Delegate<Void, Int>()
        let keeper = Owner(name: "k")
        ping.delegate(on: keeper) { _, _ in 7 }
        #expect(ping.call() == 7 && ping() == 7)
        // An optional output comes back flat: `String?`, not `String??`.
        let lookup = Delegate<Int, String?>()
        let none: String? = lookup.call(1)
        #expect(none == nil)
        lookup.delegate(on: keeper) { _, value in value > 0 ? "positive" : nil }
        let flat: String? = lookup(1)
        let negative: String? = lookup.call(-1)
        #expect(flat == "positive" && negative == nil)
        let nothing = Delegate<Void, Int?>()
        let nilResult: Int? = nothing.call()
        #expect(nilResult == nil && Optional<Int>._createNil == nil)
        func emptyValue<T: OptionalProtocol>(of type: T.Type) -> T { T._createNil }
        #expect(emptyValue(of: String?.self) == nil)
        let empty: Int? = nothing()
        #expect(empty == nil)
    }

    @Test func anOperationQueueRunsCallbacks() async throws {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let callback: CallbackQueue = .operationQueue(queue)
        let ran = await withCheckedContinuation { continuation in
            callback.execute { continuation.resume(returning: OperationQueue.current === queue) }
        }
        #expect(ran)
        let operations: any CallbackOperationQueue = queue
        #expect(operations.underlyingQueue == nil)
        let added = await withCheckedContinuation { continuation in
            operations.addOperation { continuation.resume(returning: OperationQueue.current === queue) }
        }
        #expect(added)
        let loading: ExecutionQueue = .operationQueue(queue)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-surface-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("a.png")
        try surfacePNG(side: 1).write(to: file)
        let provider = LocalFileImageDataProvider(fileURL: file, loadingQueue: loading)
        #expect(try await provider.data == surfacePNG(side: 1))
        #expect(provider.cacheKey == "kingfisher.local.cacheKey//" + file.path)
    }

    @MainActor @Test func builderDelegatesRunAfterTheHandlers() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-surface-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try ImageCache(name: "surface", cacheDirectoryURL: folder)
        let png = surfacePNG(side: 2)
        let order = Mutex<[String]>([])
        let owner = Owner(name: "view controller")
        let done = AsyncStream<Void>.makeStream()
        let builder = KF.data(png, cacheKey: "surface-\(UUID().uuidString)")
            .targetCache(cache)
            .serialize(by: FormatIndicatedCacheSerializer.png)
            .imageModifier { (image: inout KFCrossPlatformImage) in image = image.withScale(2) }
            .progressiveJPEG(ImageProgressive())
            .onSuccess { _ in order.withLock { $0.append("handler") } }
        builder.onSuccessDelegate.delegate(on: owner) { owner, result in
            order.withLock { $0.append("delegate \(owner.name) \(result.image.scale)") }
            done.continuation.yield()
        }
        builder.onFailureDelegate.delegate(on: owner) { _, error in Issue.record("failed: \(error)") }
        builder.onProgressDelegate.delegate(on: owner) { _, _ in }
        #expect(builder.copyForMutation() === builder)
        #expect(builder.onProgressDelegate.isSet)
        let view = SurfaceImageView()
        builder.set(to: view)
        var iterator = done.stream.makeAsyncIterator()
        _ = await iterator.next()
        #expect(order.withLock { $0 } == ["handler", "delegate view controller 2.0"])
        #expect(view.image?.scale == 2)
        #expect(builder.options.cacheSerializer is FormatIndicatedCacheSerializer)
        #expect(ImageProgressive().isBlur && ImageProgressive().isFastestScan && ImageProgressive().scanInterval == 0)
    }

    @Test func errorsKeepKingfishersDomainAndPropagationErrorName() {
        #expect(KingfisherError.domain == "com.onevcat.Kingfisher.Error")
        #expect(KingfisherError.errorDomain == KingfisherError.domain)
        let failure = PropagationError(source: .network(URL(fileURLWithPath: "/a.png")), error: .imageSettingError(reason: .emptySource))
        let nested: KingfisherError.PropagationError = failure
        let error = KingfisherError.imageSettingError(reason: .alternativeSourcesExhausted([nested]))
        guard case .imageSettingError(reason: .alternativeSourcesExhausted(let list)) = error else {
            Issue.record("not exhausted")
            return
        }
        #expect(list.count == 1 && list[0].error.errorCode == 5001)
        let url = URL(fileURLWithPath: "/var/cache")
        #expect(KingfisherError.cacheError(reason: .fileEnumeratorCreationFailed(url: url)).errorCode == 3001)
        #expect(KingfisherError.cacheError(reason: .invalidFileEnumeratorContent(url: url)).errorCode == 3002)
        let attribute = KingfisherError.cacheError(reason: .cannotSetCacheFileAttribute(
            filePath: "/var/cache/x", attributes: [.modificationDate: Date()], error: POSIXError(.EPERM)))
        #expect(attribute.errorCode == 3010 && attribute.localizedDescription.contains("/var/cache/x"))
    }

    @Test func aDownloadTaskIsInitializedOnceAttachedAndTheManagerReportsIt() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/a.png", .ok(surfacePNG(side: 3)))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-surface-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try ImageCache(name: "surface", cacheDirectoryURL: folder)
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let initialized = Mutex<Bool?>(nil)
        let loaded = await withCheckedContinuation { continuation in
            let task = ImageDownloader.default.downloadImage(with: server.url("/a.png")) { continuation.resume(returning: $0) }
            initialized.withLock { $0 = task?.isInitialized }
        }
        #expect(initialized.withLock { $0 } == true && (try? loaded.get())?.image.pixelWidth == 3)
        let updates = Mutex<Int>(0)
        let updated: DownloadTaskUpdatedBlock = { _ in updates.withLock { $0 += 1 } }
        let result = await withCheckedContinuation { continuation in
            manager.retrieveImage(
                with: .network(server.url("/missing.png")),
                options: [.alternativeSources([.network(server.url("/a.png"))])],
                downloadTaskUpdated: updated
            ) { continuation.resume(returning: $0) }
        }
        #expect((try? result.get())?.image.pixelWidth == 3)
        #expect(updates.withLock { $0 } >= 1)
        let prefetcher = ImagePrefetcher(urls: [])
        #expect(prefetcher.description.hasPrefix("0x") && prefetcher.description != ImagePrefetcher(urls: []).description)
        try await server.shutdown()
    }
}

@Suite struct KingfisherAPISurfaceCacheAndImageTests {
    @Test func cacheNamesWorkOnARealFolder() async throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("kf-surface-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: parent) }
        let closure: ImageCache.DiskCachePathClosure = { directory, name in directory.appendingPathComponent("k-" + name) }
        let cache = try ImageCache(name: "surface", cacheDirectoryURL: parent, diskCachePathClosure: closure)
        #expect(cache.diskStorage.directoryURL.lastPathComponent == "k-com.onevcat.Kingfisher.ImageCache.surface")
        var config = DiskStorage.Config(name: "plain", sizeLimit: 0, fileManager: .default, directory: parent)
        config.cachePathBlock = { directory, name in directory.appendingPathComponent(name + "-block") }
        let storage = try DiskStorage.Backend<Data>(config: config)
        #expect(storage.directoryURL.lastPathComponent == "com.onevcat.Kingfisher.ImageCache.plain-block")
        try storage.store(value: Data("x".utf8), forKey: "k", expiration: .seconds(60))
        #expect(storage.isCached(forKey: "k", referenceDate: Date()))
        #expect(!storage.isCached(forKey: "k", referenceDate: Date().addingTimeInterval(3_600)))

        let image = try KFCrossPlatformImage(data: surfacePNG(side: 4))
        try await cache.store(image, forKey: "image")
        #expect(cache.cacheFileURLIfOnDisk(forKey: "image") != nil && cache.cacheFileURLIfOnDisk(forKey: "other") == nil)
        #expect(cache.memoryStorageCacheCost == image.cost && cache.memoryStorage.totalCacheCost() == 64)
        var memory = MemoryStorage.Config(totalCostLimit: 100)
        memory.keepWhenEnteringBackground = true
        #expect(memory.keepWhenEnteringBackground)
        await cache.clearDiskCache()
        #expect(cache.cacheFileURLIfOnDisk(forKey: "image") == nil)
    }

    @Test func thumbnailsOfALocalFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-surface-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("big.png")
        try surfacePNG(side: 40).write(to: file)
        var provider = ThumbnailImageDataProvider(url: file, maxPixelSize: 10, alwaysCreateThumbnail: true, cacheKey: nil)
        #expect(provider.url == file && provider.maxPixelSize == 10 && provider.alwaysCreateThumbnail)
        #expect(provider.cacheKey == file.absoluteString + "_thumb_10.0_true")
        provider.cacheKey = "small"
        provider.maxPixelSize = 8
        provider.alwaysCreateThumbnail = false
        let thumbnail = try await withCheckedThrowingContinuation { continuation in
            provider.data { continuation.resume(with: $0) }
        }
        #expect(try KFCrossPlatformImage(data: thumbnail).pixelWidth == 8)
        let reasons: [ThumbnailImageDataProvider.ThumbnailImageDataProviderError] =
            [.invalidImageSource, .invalidThumbnail, .writeDataError, .finalizeDataError]
        #expect(Set(reasons.map { "\($0)" }).count == 4)
    }

    @Test func imageNamesOnAnAnimatedGIFAndAJPEG() throws {
        let gif = KingfisherFidelityTests.animatedGIF
        var options = ImageCreatingOptions(scale: 1, duration: 1.5, preloadAll: true, onlyFirstFrame: false)
        #expect(options.duration == 1.5 && options.preloadAll)
        let preloaded = try #require(KingfisherWrapper.animatedImage(data: gif, options: options))
        #expect(preloaded.frames.map(\.duration) == [0.5, 0.5, 0.5] && preloaded.kf.imageFrameCount == 3)
        options.preloadAll = false
        let lazy = try #require(KingfisherWrapper.animatedImage(data: gif, options: options))
        let source = try #require(lazy.kf.frameSource)
        #expect(source.copy().frameCount == 3 && source.frame(at: 1)?.width == 6)
        let rebuilt = try #require(KingfisherWrapper.animatedImage(source: source, options: options, baseImage: nil))
        #expect(rebuilt.kf.imageFrameCount == 3)
        var plain = try KFCrossPlatformImage(data: surfacePNG(side: 6))
        lazy.kf.copyKingfisherState(to: &plain)
        #expect(plain.kf.frameSource != nil)
        #expect(lazy.kf.normalized == lazy && lazy.kf.decoded == lazy && plain.kf.decoded(scale: 2) == plain)

        let jpeg = try KFCrossPlatformImage(data: surfacePNG(side: 8)).encoded(as: .JPEG)
        let markers: [ImageFormat.JPEGMarker] = [.SOF0, .SOF2, .DHT, .DQT, .DRI, .SOS, .RSTn(0), .APPn, .COM, .EOI]
        let found = markers.filter { jpeg.kf.contains(jpeg: $0) }
        #expect(found.contains(.SOF0) && found.contains(.EOI) && !found.contains(.SOF2))
        let still = try KFCrossPlatformImage(data: jpeg)
        #expect(still.kf.decoded(scale: 2).scale == 2 && still.kf.normalized.pixelWidth == 8)
    }
}

/// A `side`×`side` grey PNG.
private func surfacePNG(side: Int) -> Data {
    guard let frame = ImageFrame(width: side, height: side, pixels: [UInt8](repeating: 120, count: side * side * 4)) else {
        return Data()
    }
    return (try? KFCrossPlatformImage(frame: frame).encoded(as: .PNG)) ?? Data()
}

/// A minimal image target, as a toolkit adapter would write one.
@MainActor private final class SurfaceImageView: KingfisherHasImageComponent {
    let kingfisherState = KingfisherTargetState()
    var image: KFCrossPlatformImage?
}
