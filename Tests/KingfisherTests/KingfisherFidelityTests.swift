import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// Behaviours where the library once differed from Kingfisher's own tests (issue 13).
@Suite struct KingfisherFidelityTests {
    /// A 3-frame 6×4 animated GIF: red, green, blue, 0.2 s each, looping forever.
    static let animatedGIF: Data = {
        let palette = [GIFWriter.Color(r: 255, g: 0, b: 0), .init(r: 0, g: 255, b: 0), .init(r: 0, g: 0, b: 255), .init(r: 0, g: 0, b: 0)]
        var writer = GIFWriter(width: 6, height: 4, globalPalette: palette, loopCount: 0)
        writer.frames = (0..<3).map { .filled(UInt8($0), width: 6, height: 4, control: .init(delay: 20)) }
        return writer.data()
    }()

    @Test func anAnimationStoredWithoutItsOriginalStaysAnAnimatedGIF() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Frames made in memory: no GIF bytes behind them, so the serializer must encode them.
        let decoded = try KFCrossPlatformImage(data: Self.animatedGIF)
        let animation = try #require(KFCrossPlatformImage(frames: decoded.frames, loopCount: 0))
        #expect(animation.frames.count == 3 && animation.kf.animatedImageData == nil)
        try await cache.store(animation, forKey: "anim")
        let stored = try #require(try cache.diskStorage.value(forKey: "anim"))
        #expect(stored.kf.imageFormat == .GIF)
        let back = try KFCrossPlatformImage(data: stored)
        #expect(back.frames.count == 3)
        #expect(back.frames.map(\.duration) == [0.2, 0.2, 0.2])
        #expect(back.frames.map { $0.pixel(x: 0, y: 0) } == animation.frames.map { $0.pixel(x: 0, y: 0) })

        // A PNG original cannot hold the frames either: the rule is the same. A still keeps PNG.
        let png = try #require(TestImages.gradient(width: 4, height: 4).kf.pngRepresentation())
        #expect(DefaultCacheSerializer.default.data(with: animation, original: png)?.kf.imageFormat == .GIF)
        let still = TestImages.gradient(width: 4, height: 4)
        #expect(DefaultCacheSerializer.default.data(with: still, original: nil)?.kf.imageFormat == .PNG)
    }

    @Test func autoExtensionComesFromTheKeyBeforeTheProcessorIdentifier() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-ext-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var config = DiskStorage.Config(name: "ext", sizeLimit: 0, directory: folder)
        config.autoExtAfterHashedFileName = true
        let cache = ImageCache(
            memoryStorage: MemoryStorage.Backend(config: .init(totalCostLimit: 1 << 20, cleanInterval: 0)),
            diskStorage: try DiskStorage.Backend(config: config))
        let processor = DownsamplingImageProcessor(size: CGSize(width: 2, height: 2))
        let image = TestImages.gradient(width: 4, height: 4)
        let key = "https://example.com/photo.jpg"
        var options = KingfisherParsedOptionsInfo([.processor(processor)])
        options.callbackQueue = .untouch
        try await cache.store(image, forKey: key, options: options)

        let computed = "\(key)@\(processor.identifier)"
        let path = cache.cachePath(forKey: key, processorIdentifier: processor.identifier)
        #expect(path.hasSuffix("/\(computed.kf.sha256).jpg"))
        #expect(FileManager.default.fileExists(atPath: path))
        cache.clearMemoryCache()
        #expect(cache.imageCachedType(forKey: key, processorIdentifier: processor.identifier) == .disk)
        #expect(try await cache.retrieveImage(forKey: key, options: [.processor(processor)]).cacheType == .disk)

        // No extension when the text after the last dot holds a query or a slash.
        #expect(cache.hash(forKey: "https://example.com/photo.jpg?size=2") == "https://example.com/photo.jpg?size=2".kf.sha256)
        #expect(cache.hash(forKey: "https://example.com/photo", processorIdentifier: processor.identifier)
            == "https://example.com/photo@\(processor.identifier)".kf.sha256)
    }

    @Test func anImageDecodedFromAnAnimationGivesBackItsBytes() throws {
        let full = try KFCrossPlatformImage(data: Self.animatedGIF)
        let first = try KFCrossPlatformImage(data: Self.animatedGIF, options: ImageCreatingOptions(onlyFirstFrame: true))
        #expect(first.frames.count == 1)
        #expect(full.kf.gifRepresentation() == Self.animatedGIF)
        #expect(first.kf.gifRepresentation() == Self.animatedGIF)
        #expect(DefaultCacheSerializer.default.data(with: first, original: Self.animatedGIF) == Self.animatedGIF)
        // A processed animation has new pixels: it is encoded, every frame kept.
        let tinted = try #require(TintImageProcessor(tint: KFCrossPlatformColor(white: 0, alpha: 0.5)).process(item: .image(full), options: .init(nil)))
        #expect(tinted.kf.animatedImageData == nil)
        #expect(try KFCrossPlatformImage(data: try #require(tinted.kf.gifRepresentation())).frames.count == 3)
    }

    @Test func cacheHitsGiveTheSerializersBytes() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/hit.png")
            let fetched = try await ManagerKit.retrieve(manager, source, [.waitForCache]).get()
            cache.clearMemoryCache()
            let disk = try await ManagerKit.retrieve(manager, source).get()
            #expect(disk.cacheType == .disk)
            let diskData = try #require(disk.data())
            #expect(diskData.kf.imageFormat == .PNG)
            #expect(try KFCrossPlatformImage(data: diskData) == fetched.image)

            let jpeg = try await ManagerKit.retrieve(
                manager, source, [.cacheSerializer(FormatIndicatedCacheSerializer.jpeg)]).get()
            #expect(jpeg.cacheType == .memory)
            #expect(jpeg.data()?.kf.imageFormat == .JPEG)
        }
    }

    @Test func imageCachedTypeAsyncAnswersForEachLevel() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(await cache.imageCachedTypeAsync(forKey: "k") == .none)
        try await cache.store(TestImages.gradient(width: 2, height: 2), forKey: "k")
        #expect(await cache.imageCachedTypeAsync(forKey: "k") == .memory)
        cache.clearMemoryCache()
        #expect(await cache.imageCachedTypeAsync(forKey: "k") == .disk)
        #expect(await cache.imageCachedTypeAsync(forKey: "k", processorIdentifier: "other") == .none)
    }
}

/// Sources, providers and the error helpers Kingfisher code relies on.
@Suite struct SourceFidelityTests {
    @Test func localFilesAreKeyedInKingfishersLocalForm() throws {
        let file = URL(fileURLWithPath: "/tmp/images/photo.png")
        #expect(file.cacheKey == "kingfisher.local.cacheKey///tmp/images/photo.png")
        let underPrivate = URL(fileURLWithPath: "/private/var/x.jpg")
        #expect(underPrivate.cacheKey == "kingfisher.local.cacheKey///private/var/x.jpg")
        #expect(LocalFileImageDataProvider(fileURL: file).cacheKey == file.cacheKey)
        let withQuery = try #require(URL(string: "file:///tmp/images/photo.png?v=2"))
        #expect(withQuery.cacheKey == "kingfisher.local.cacheKey///tmp/images/photo.png?v=2")
        #expect(KF.ImageResource(downloadURL: file).cacheKey == file.cacheKey)
        #expect(file.convertToSource().cacheKey == file.cacheKey)
        #expect(LocalFileImageDataProvider(fileURL: file, cacheKey: "mine").cacheKey == "mine")
        #expect(URL(string: "https://example.com/a.png")?.cacheKey == "https://example.com/a.png")
    }

    @Test func aLocalFileIsReadOnItsLoadingQueue() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.png")
        try DownloaderKit.png.write(to: file)
        let queue = DispatchQueue(label: "kf.test.loading")
        let marker = DispatchSpecificKey<Int>()
        queue.setSpecific(key: marker, value: 7)
        let provider = LocalFileImageDataProvider(fileURL: file, loadingQueue: .dispatch(queue))
        let onQueue = await withCheckedContinuation { continuation in
            provider.data { result in
                continuation.resume(returning: DispatchQueue.getSpecific(key: marker) == 7 && (try? result.get()) == DownloaderKit.png)
            }
        }
        #expect(onQueue)
        #expect(try await provider.data() == DownloaderKit.png)
        let inline = LocalFileImageDataProvider(fileURL: file, loadingQueue: .untouch)
        #expect(try await inline.data() == DownloaderKit.png)
    }

    @Test func base64AnswersBeforeDataHandlerReturns() {
        let provider = Base64ImageDataProvider(base64String: DownloaderKit.png.base64EncodedString(), cacheKey: "b64")
        let answered = Mutex<Data?>(nil)
        provider.data { result in answered.withLock { $0 = try? result.get() } }
        #expect(answered.withLock { $0 } == DownloaderKit.png)
        let bad = Base64ImageDataProvider(base64String: "***", cacheKey: "bad")
        let failed = Mutex(false)
        bad.data { result in failed.withLock { $0 = (try? result.get()) == nil } }
        #expect(failed.withLock { $0 })
    }

    /// A provider that waits until its task is cancelled.
    struct StallingProvider: ImageDataProvider {
        let cacheKey = "stalling"
        let started: Recorder<Int>
        func data() async throws -> Data {
            started.record(1)
            while !Task.isCancelled { await Task.yield() }
            throw CancellationError()
        }
    }

    @Test func cancellingAProviderFailsWithDataProviderCancelled() async throws {
        try await ManagerKit.run { _, manager, _ in
            let started = Recorder<Int>()
            let provider = StallingProvider(started: started)
            let outcome = Recorder<KingfisherError>()
            let task = manager.retrieveImage(with: .provider(provider)) { result in
                if case .failure(let error) = result { outcome.record(error) }
            }
            _ = await started.wait(for: 1)
            task?.cancel()
            let error = try #require(await outcome.wait(for: 1).first)
            #expect(error.errorCode == 1006)
            #expect(error.isTaskCancelled)
            guard case .requestError(reason: .dataProviderCancelled(let cancelled)) = error else {
                Issue.record("expected dataProviderCancelled, got \(error)")
                return
            }
            #expect(cancelled.cacheKey == "stalling")
        }
    }

    @Test func sourcesAreHashableAndProvidersConvert() throws {
        let a = Source.network(try #require(URL(string: "https://example.com/a.png")))
        let b = Source.network(KF.ImageResource(downloadURL: try #require(URL(string: "https://example.com/a.png"))))
        let c = Source.network(KF.ImageResource(downloadURL: try #require(URL(string: "https://example.com/a.png")), cacheKey: "c"))
        let raw = RawImageDataProvider(data: Data([1]), cacheKey: "raw")
        #expect(a == b)
        #expect(a != c)
        #expect(Set([a, b, c, raw.convertToSource()]).count == 3)
        #expect(raw.convertToSource() == .provider(RawImageDataProvider(data: Data([2]), cacheKey: "raw")))
        #expect(raw.convertToSource() != a)
    }

    @Test func errorHelpersMatchTheirReasons() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/missing", .status(404))
            await #expect { try await downloader.downloadImage(with: server.url("/missing")) } throws: { error in
                guard let error = error as? KingfisherError else { return false }
                return error.isInvalidResponseStatusCode(404) && !error.isInvalidResponseStatusCode(500)
                    && !error.isNotCurrentTask
            }
        }
        let stale = KingfisherError.imageSettingError(reason: .notCurrentSourceTask(result: nil, error: nil, source: .provider(RawImageDataProvider(data: Data(), cacheKey: "k"))))
        #expect(stale.isNotCurrentTask)
        #expect(stale.errorCode == 5002)
        #expect(!stale.isInvalidResponseStatusCode(404))
    }
}
