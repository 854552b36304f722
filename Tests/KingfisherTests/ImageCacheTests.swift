import Foundation
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// A processor with a chosen identifier that marks the image, so tests can see it ran.
struct IdentifierOnlyProcessor: ImageProcessor {
    let identifier: String
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultImageProcessor.default.process(item: item, options: options)
    }
}

@Suite struct ImageCacheTests {
    struct Fixture {
        let folder: URL
        let clock = ManualClock()
        let cache: ImageCache

        init() throws {
            try self.init(folder: KFCommandTests.temporaryDirectory())
        }

        /// A cache on `folder`, which may already hold another fixture's entries.
        init(folder: URL) throws {
            self.folder = folder
            var memory = MemoryStorage.Config(totalCostLimit: 64 << 20, cleanInterval: 0)
            memory.clock = clock.clock
            var disk = DiskStorage.Config(name: "test", sizeLimit: 0, directory: folder)
            disk.clock = clock.clock
            cache = ImageCache(
                memoryStorage: MemoryStorage.Backend(config: memory),
                diskStorage: try DiskStorage.Backend(config: disk)
            )
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    static let image = TestImages.gradient(width: 24, height: 16)

    @Test func memoryHitIsAnsweredBeforeRetrieveReturns() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        fixture.cache.store(Self.image, forKey: "k", toDisk: false)
        let answer = Mutex<CacheType?>(nil)
        fixture.cache.retrieveImage(forKey: "k") { result in
            answer.withLock { $0 = (try? result.get())?.cacheType }
        }
        #expect(answer.withLock { $0 } == .memory)
    }

    @Test func ladderGoesMemoryThenDiskThenNone() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        try await cache.store(Self.image, forKey: "https://example.com/a.png")
        #expect(try await cache.retrieveImage(forKey: "https://example.com/a.png").cacheType == .memory)
        cache.clearMemoryCache()
        #expect(cache.imageCachedType(forKey: "https://example.com/a.png") == .disk)
        let fromDisk = try await cache.retrieveImage(forKey: "https://example.com/a.png")
        #expect(fromDisk.cacheType == .disk)
        #expect(fromDisk.image?.frames.first?.pixels == Self.image.frames.first?.pixels)
        #expect(try await cache.retrieveImage(forKey: "https://example.com/a.png").cacheType == .memory)
        await cache.clearCache()
        #expect(try await cache.retrieveImage(forKey: "https://example.com/a.png").cacheType == .none)
        #expect(!cache.isCached(forKey: "https://example.com/a.png"))
    }

    @Test func completionHandlerFormsReportTheSameLadder() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        let stored = DispatchSemaphore(value: 0)
        cache.store(Self.image, forKey: "cb") { result in
            if case .success = result.diskCacheResult { stored.signal() }
        }
        stored.wait()
        cache.clearMemoryCache()
        let types = Mutex<[CacheType]>([])
        let done = DispatchSemaphore(value: 0)
        cache.retrieveImage(forKey: "cb") { result in
            types.withLock { $0.append((try? result.get())?.cacheType ?? .none) }
            done.signal()
        }
        done.wait()
        cache.retrieveImage(forKey: "cb") { result in
            types.withLock { $0.append((try? result.get())?.cacheType ?? .none) }
            done.signal()
        }
        done.wait()
        #expect(types.withLock { $0 } == [.disk, .memory])
    }

    @Test func processorIdentifierSeparatesEntries() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        var options = KingfisherParsedOptionsInfo(nil)
        options.processor = IdentifierOnlyProcessor(identifier: "round(8)")
        try await cache.store(Self.image, forKey: "key", options: options)
        #expect(!cache.isCached(forKey: "key"))
        #expect(cache.isCached(forKey: "key", processorIdentifier: "round(8)"))
        #expect(try await cache.retrieveImage(forKey: "key").cacheType == .none)
        #expect(try await cache.retrieveImage(forKey: "key", options: options).cacheType == .memory)
        #expect(cache.hash(forKey: "key", processorIdentifier: "round(8)") == "key@round(8)".kf.sha256)
        #expect(cache.cachePath(forKey: "key", processorIdentifier: "round(8)")
            == cache.diskStorage.directoryURL.appendingPathComponent("key@round(8)".kf.sha256).path)

        await cache.removeImage(forKey: "key")
        #expect(cache.isCached(forKey: "key", processorIdentifier: "round(8)"))
        await cache.removeImage(forKey: "key", processorIdentifier: "round(8)")
        #expect(!cache.isCached(forKey: "key", processorIdentifier: "round(8)"))
    }

    @Test(arguments: [ImageFormat.PNG, .JPEG, .GIF, .WebP])
    func serializerWritesItsFormatAndReadsItBack(format: ImageFormat) async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        let serializer: FormatIndicatedCacheSerializer = switch format {
        case .PNG: .png
        case .JPEG: .jpeg
        case .GIF: .gif
        default: .webp
        }
        try await cache.store(Self.image, forKey: "s", cacheSerializer: serializer)
        let file = try Data(contentsOf: URL(fileURLWithPath: cache.cachePath(forKey: "s")))
        #expect(file.kf.imageFormat == format)
        cache.clearMemoryCache()
        var options = KingfisherParsedOptionsInfo(nil)
        options.cacheSerializer = serializer
        let result = try await cache.retrieveImage(forKey: "s", options: options)
        #expect(result.cacheType == .disk)
        #expect(result.image?.pixelWidth == 24)
        #expect(result.image?.pixelHeight == 16)
    }

    @Test func storeToDiskKeepsTheBytesAndOriginalDataIsUsedWhenAsked() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        let png = try #require(Self.image.kf.pngRepresentation())
        try await cache.storeToDisk(png, forKey: "raw")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cache.cachePath(forKey: "raw"))) == png)
        #expect(cache.imageCachedType(forKey: "raw") == .disk)
        let image = try await cache.retrieveImageInDiskCache(forKey: "raw")
        #expect(image?.frames.first?.pixels == Self.image.frames.first?.pixels)
        #expect(try await cache.diskStorageSize == UInt(png.count))
    }

    @Test func undecodableDiskBytesAreAMiss() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await fixture.cache.storeToDisk(Data("not an image".utf8), forKey: "junk")
        #expect(try await fixture.cache.retrieveImage(forKey: "junk").cacheType == .none)
    }

    @Test func memoryOnlyOptionsSkipTheDisk() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        try await cache.store(Self.image, forKey: "m", options: KingfisherParsedOptionsInfo([.cacheMemoryOnly]))
        #expect(cache.imageCachedType(forKey: "m") == .memory)
        cache.clearMemoryCache()
        #expect(cache.imageCachedType(forKey: "m") == .none)

        try await cache.store(Self.image, forKey: "d")
        cache.clearMemoryCache()
        let refresh = try await cache.retrieveImage(forKey: "d", options: [.fromMemoryCacheOrRefresh])
        #expect(refresh.cacheType == .none)
        #expect(try await cache.retrieveImage(forKey: "d").cacheType == .disk)
    }

    @Test func aReadRightAfterAStoreSeesIt() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        let seen = Mutex(0)
        let group = DispatchGroup()
        for index in 0..<20 {
            cache.store(Self.image, forKey: "order-\(index)", toDisk: true)
            group.enter()
            cache.retrieveImageInDiskCache(forKey: "order-\(index)") { result in
                if case .success(.some) = result { seen.withLock { $0 += 1 } }
                group.leave()
            }
        }
        group.wait()
        #expect(seen.withLock { $0 } == 20)
    }

    @Test func expiredDiskEntriesAreCleanedWithANotification() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        try await cache.store(Self.image, forKey: "short", options: KingfisherParsedOptionsInfo([.diskCacheExpiration(.seconds(60))]))
        try await cache.store(Self.image, forKey: "long", options: KingfisherParsedOptionsInfo([.diskCacheExpiration(.days(2))]))
        fixture.clock.advance(by: 120)
        cache.clearMemoryCache()
        #expect(!cache.isCached(forKey: "short"))
        #expect(cache.isCached(forKey: "long"))

        let hashes = Mutex<[String]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: .KingfisherDidCleanDiskCache, object: cache, queue: nil
        ) { notification in
            let removed = notification.userInfo?[KingfisherDiskCacheCleanedHashKey] as? [String] ?? []
            hashes.withLock { $0 += removed }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        await cache.cleanExpiredDiskCache()
        #expect(hashes.withLock { $0 } == [cache.hash(forKey: "short")])
        #expect(cache.isCached(forKey: "long"))
    }

    @Test func memoryExpirationFollowsTheOptions() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let cache = fixture.cache
        try await cache.store(Self.image, forKey: "e", options: KingfisherParsedOptionsInfo([.memoryCacheExpiration(.seconds(10)), .cacheMemoryOnly]))
        fixture.clock.advance(by: 5)
        #expect(cache.retrieveImageInMemoryCache(forKey: "e", options: [.memoryCacheAccessExtendingExpiration(.none)]) != nil)
        fixture.clock.advance(by: 6)
        #expect(cache.retrieveImageInMemoryCache(forKey: "e") == nil)
    }

    @Test func badNamesAndUncreatableFoldersThrowCannotCreateDirectory() throws {
        let folder = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        for (name, parent) in [("", folder), ("a/b", folder), ("ok", file)] {
            #expect {
                _ = try ImageCache(name: name, cacheDirectoryURL: parent)
            } throws: { error in
                guard case .cacheError(reason: .cannotCreateDirectory) = error as? KingfisherError else { return false }
                return true
            }
        }
    }

    @Test func theNonThrowingInitializerFailsWritesClearly() async throws {
        let folder = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let config = DiskStorage.Config(name: "broken", sizeLimit: 0, directory: file)
        let cache = ImageCache(
            memoryStorage: MemoryStorage.Backend(config: .init(totalCostLimit: 1 << 20, cleanInterval: 0)),
            diskStorage: DiskStorage.Backend(noThrowConfig: config, creatingDirectory: true)
        )
        await #expect {
            try await cache.store(Self.image, forKey: "x")
        } throws: { error in
            guard case .cacheError(reason: .cannotCreateDirectory) = error as? KingfisherError else { return false }
            return true
        }
        #expect(cache.imageCachedType(forKey: "x") == .memory)
        cache.clearMemoryCache()
        await #expect {
            try await cache.retrieveImage(forKey: "x")
        } throws: { error in
            guard case .cacheError(reason: .diskStorageIsNotReady) = error as? KingfisherError else { return false }
            return true
        }
    }
}
