import Foundation
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// A file manager whose attribute writes fail, as a read-only or odd filesystem would make them.
final class AttributeRefusingFileManager: FileManager, @unchecked Sendable {
    // No stored state: `@unchecked` only restates FileManager's own conformance for the subclass.
    override func setAttributes(_ attributes: [FileAttributeKey: Any], ofItemAtPath path: String) throws {
        throw POSIXError(.EROFS)
    }
}

/// The cache members restored under Kingfisher's names, on real folders.
@Suite struct CacheRestoredAPITests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("kf-restored-\(UUID().uuidString)")
    }

    @Test func aDiskCachePathClosurePlacesTheFolderAndIsNotKept() async throws {
        let parent = Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let seen = Mutex<[String]>([])
        let cache = try ImageCache(name: "paths", cacheDirectoryURL: parent) { directory, folderName in
            seen.withLock { $0.append(folderName) }
            return directory.appendingPathComponent("custom", isDirectory: true).appendingPathComponent(folderName)
        }
        let expected = parent.appendingPathComponent("custom/com.onevcat.Kingfisher.ImageCache.paths", isDirectory: true)
        #expect(cache.diskStorage.directoryURL.standardizedFileURL.path == expected.standardizedFileURL.path)
        #expect(seen.withLock { $0 } == ["com.onevcat.Kingfisher.ImageCache.paths"])
        #expect(cache.diskStorage.config.cachePathBlock == nil)
        try await cache.store(TestImages.gradient(width: 4, height: 4), forKey: "k")
        let file = try #require(cache.cacheFileURLIfOnDisk(forKey: "k"))
        #expect(file.deletingLastPathComponent().standardizedFileURL.path == expected.standardizedFileURL.path)
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aStoredFileCarriesTheStoreTimeAsItsModificationDate() throws {
        let parent = Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_500_000_000))
        var config = DiskStorage.Config(name: "stamped", sizeLimit: 0, fileManager: .default, directory: parent)
        config.clock = clock.clock
        let storage = try DiskStorage.Backend<Data>(config: config)
        try storage.store(value: Data("abc".utf8), forKey: "k")
        let attributes = try FileManager.default.attributesOfItem(atPath: storage.cacheFileURL(forKey: "k").path)
        let modified = try #require(attributes[.modificationDate] as? Date)
        #expect(abs(modified.timeIntervalSince1970 - 1_500_000_000) < 1)
    }

    @Test func aFailedAttributeWriteIsCannotSetCacheFileAttributeAndKeepsNoFile() throws {
        let parent = Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let config = DiskStorage.Config(
            name: "refusing", sizeLimit: 0, fileManager: AttributeRefusingFileManager(), directory: parent)
        let storage = try DiskStorage.Backend<Data>(config: config)
        let target = storage.cacheFileURL(forKey: "k").path
        do {
            try storage.store(value: Data("abc".utf8), forKey: "k")
            Issue.record("the store succeeded")
        } catch KingfisherError.cacheError(reason: .cannotSetCacheFileAttribute(let path, let attributes, let error)) {
            #expect(path == target)
            #expect(attributes[.modificationDate] is Date)
            #expect((error as? POSIXError)?.code == .EROFS)
            #expect(KingfisherError.cacheError(reason: .cannotSetCacheFileAttribute(
                filePath: path, attributes: attributes, error: error)).errorCode == 3010)
        }
        #expect(!storage.isCached(forKey: "k"))
        let left = try FileManager.default.contentsOfDirectory(atPath: storage.directoryURL.path).filter { $0 != ".kf" }
        #expect(left.isEmpty, "files left behind: \(left)")
    }

    @Test func listingFailuresAreTheEnumeratorReasons() throws {
        let parent = Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let file = parent.appendingPathComponent("plain")
        try Data("x".utf8).write(to: file)
        // A file where the folder should be: opendir fails (ENOTDIR), even for root.
        guard case .failure(let failure) = DiskFolderListing.names(atPath: file.path) else {
            Issue.record("a file was listed as a folder")
            return
        }
        let mapped = DiskFolderListing.cacheError(failure, folder: file)
        guard case .cacheError(reason: .fileEnumeratorCreationFailed(let url)) = mapped else {
            Issue.record("got \(mapped)")
            return
        }
        #expect(url == file && mapped.errorCode == 3001)
        let readFailure = DiskFolderListing.cacheError(.readFailed(POSIXError(.EIO)), folder: parent)
        guard case .cacheError(reason: .invalidFileEnumeratorContent(let url)) = readFailure else {
            Issue.record("got \(readFailure)")
            return
        }
        #expect(url == parent && readFailure.errorCode == 3002)
        // A real folder lists its hidden and plain names.
        #expect(Set(try DiskFolderListing.names(atPath: parent.path).get()) == ["plain"])
    }

    @Test func cacheFileURLIfOnDiskAnswersOnlyForEntriesOnDisk() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        let processor = DownsamplingImageProcessor(size: CGSize(width: 2, height: 2))
        #expect(cache.cacheFileURLIfOnDisk(forKey: "k") == nil)
        try await cache.store(TestImages.gradient(width: 4, height: 4), forKey: "k", processorIdentifier: processor.identifier)
        #expect(cache.cacheFileURLIfOnDisk(forKey: "k") == nil)
        let url = try #require(cache.cacheFileURLIfOnDisk(forKey: "k", processorIdentifier: processor.identifier))
        #expect(url.path == cache.cachePath(forKey: "k", processorIdentifier: processor.identifier))
        #expect(try KFCrossPlatformImage(data: Data(contentsOf: url)).pixelWidth == 4)
        await cache.clearDiskCache()
        #expect(cache.cacheFileURLIfOnDisk(forKey: "k", processorIdentifier: processor.identifier) == nil)
    }

    @Test func theMemoryCostsAreTheSumOfTheImagesHeld() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(cache.memoryStorageCacheCost == 0)
        let small = TestImages.gradient(width: 4, height: 4)
        let large = TestImages.gradient(width: 10, height: 5)
        try await cache.store(small, forKey: "a", toDisk: false)
        try await cache.store(large, forKey: "b", toDisk: false)
        #expect(cache.memoryStorageCacheCost == small.cost + large.cost)
        #expect(cache.memoryStorage.totalCacheCost() == 4 * 16 + 4 * 50)
        cache.clearMemoryCache()
        #expect(cache.memoryStorageCacheCost == 0)
    }

    @Test func keepWhenEnteringBackgroundChangesNothingHere() {
        var config = MemoryStorage.Config(totalCostLimit: 1_000)
        #expect(config.keepWhenEnteringBackground == false)
        config.keepWhenEnteringBackground = true
        let storage = MemoryStorage.Backend<KFCrossPlatformImage>(config: config)
        storage.store(value: TestImages.gradient(width: 2, height: 2), forKey: "k")
        #expect(storage.isCached(forKey: "k") && storage.config.keepWhenEnteringBackground)
    }

    @Test func isCachedAtAReferenceDateJudgesExpiryThenWithoutRemoving() throws {
        let parent = Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let clock = ManualClock()
        var config = DiskStorage.Config(name: "reference", sizeLimit: 0, directory: parent)
        config.clock = clock.clock
        let storage = try DiskStorage.Backend<Data>(config: config)
        try storage.store(value: Data("v".utf8), forKey: "k", expiration: .seconds(100))
        #expect(storage.isCached(forKey: "k", referenceDate: clock.now.addingTimeInterval(50)))
        #expect(!storage.isCached(forKey: "k", referenceDate: clock.now.addingTimeInterval(200)))
        #expect(!storage.isCached(forKey: "missing", referenceDate: clock.now))
        #expect(storage.isCached(forKey: "k"))
        #expect(try storage.value(forKey: "k") == Data("v".utf8))
    }

    @Test func theAwaitedClearsReturnWithTheDiskEmpty() async throws {
        let (cache, folder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: folder) }
        for index in 0..<50 { try cache.diskStorage.store(value: Data(repeating: 7, count: 2_000), forKey: "k\(index)") }
        await cache.clearDiskCache()
        #expect(try cache.diskStorage.entries().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.diskStorage.directoryURL.path) == [".kf"])
        for index in 0..<20 { try cache.diskStorage.store(value: Data(repeating: 7, count: 2_000), forKey: "k\(index)") }
        await cache.clearCache()
        #expect(try cache.diskStorage.entries().isEmpty)
    }

    /// A program's top-level code awaiting an async function that awaits the clear (the form the
    /// cheat sheet shows): `cache-stress clear` stores entries, clears, and counts what is left.
    @Test func anAwaitedClearInAProgramReturnsWithTheDiskEmpty() async throws {
        let parent = Self.folder()
        defer { try? FileManager.default.removeItem(at: parent) }
        let run = try await DiskStorageFaultTests.runStress(["clear", parent.path, "toplevel", "300"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("left 0"), "\(run.output)")
    }
}
