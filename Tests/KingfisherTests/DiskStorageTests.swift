import Foundation
import Synchronization
import Testing
@testable import Kingfisher

/// A throwaway parent folder and storages in it.
struct DiskFixture {
    let parent: URL
    let clock = ManualClock()

    init() throws {
        parent = FileManager.default.temporaryDirectory.appendingPathComponent("kf-disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    }

    func config(sizeLimit: UInt = 0, expiration: StorageExpiration = .days(7)) -> DiskStorage.Config {
        var config = DiskStorage.Config(name: "test", sizeLimit: sizeLimit, directory: parent)
        config.expiration = expiration
        config.clock = clock.clock
        return config
    }

    func storage(sizeLimit: UInt = 0, expiration: StorageExpiration = .days(7)) throws -> DiskStorage.Backend<Data> {
        try DiskStorage.Backend<Data>(config: config(sizeLimit: sizeLimit, expiration: expiration))
    }

    func remove() { try? FileManager.default.removeItem(at: parent) }
}

@Suite struct DiskStorageTests {
    @Test func storesAndReadsBack() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        #expect(storage.directoryURL.path == fixture.parent.appendingPathComponent("com.onevcat.Kingfisher.ImageCache.test").path)
        let data = Data((0..<1000).map { UInt8($0 % 251) })
        try storage.store(value: data, forKey: "https://example.com/a.png")
        #expect(try storage.value(forKey: "https://example.com/a.png") == data)
        #expect(storage.isCached(forKey: "https://example.com/a.png"))
        #expect(try Data(contentsOf: storage.cacheFileURL(forKey: "https://example.com/a.png")) == data)
        let entries = try storage.entries()
        #expect(entries.map(\.key) == ["https://example.com/a.png"])
        #expect(entries.first?.size == 1000)
        #expect(try storage.totalSize() == 1000)
        try storage.store(value: Data([1, 2, 3]), forKey: "https://example.com/a.png")
        #expect(try storage.value(forKey: "https://example.com/a.png") == Data([1, 2, 3]))
        #expect(try storage.totalSize() == 3)
        try storage.remove(forKey: "https://example.com/a.png")
        #expect(try storage.value(forKey: "https://example.com/a.png") == nil)
        #expect(!FileManager.default.fileExists(atPath: storage.cacheFileURL(forKey: "https://example.com/a.png").path))
        #expect(try storage.totalSize() == 0)
    }

    @Test func hashedNamesAreSHA256Hex() {
        #expect("abc".kf.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect("".kf.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func fileNamesFollowKingfisher() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let key = "https://example.com/path/photo.webp?size=2"
        let hash = key.kf.sha256
        var config = fixture.config()
        let storage = try DiskStorage.Backend<Data>(config: config)
        #expect(storage.cacheFileName(forKey: key) == hash)
        #expect(storage.cacheFileName(forKey: key, forcedExtension: "jpg") == "\(hash).jpg")
        #expect(storage.cacheFileURL(forKey: key) == storage.directoryURL.appendingPathComponent(hash))

        storage.config.pathExtension = "png"
        #expect(storage.cacheFileName(forKey: key) == "\(hash).png")
        #expect(storage.cacheFileName(forKey: key, forcedExtension: "gif") == "\(hash).gif")

        storage.config.pathExtension = nil
        storage.config.autoExtAfterHashedFileName = true
        // The extension follows the last dot; none when a query or a folder follows it.
        #expect(storage.cacheFileName(forKey: key) == hash)
        let plain = "https://example.com/path/photo.webp"
        #expect(storage.cacheFileName(forKey: plain) == "\(plain.kf.sha256).webp")
        // As in Kingfisher, the extension comes from the part before the first `@` (what follows
        // is a processor identifier), so a name with `@` before its dot has none.
        #expect(storage.cacheFileName(forKey: "avatar@2x.png") == "avatar@2x.png".kf.sha256)
        #expect(storage.cacheFileName(forKey: "avatar.png@2x") == "\("avatar.png@2x".kf.sha256).png")
        #expect(storage.cacheFileName(forKey: "https://example.com/path") == "https://example.com/path".kf.sha256)
        #expect(storage.cacheFileName(forKey: "no-extension") == "no-extension".kf.sha256)
        #expect(storage.cacheFileName(forKey: "trailing.") == "trailing.".kf.sha256)

        config.usesHashedFileName = false
        storage.config = config
        #expect(storage.cacheFileName(forKey: "a/b%c") == "a%2Fb%25c")
        #expect(storage.cacheFileName(forKey: ".hidden.png") == "%2Ehidden.png")
        #expect(storage.cacheFileName(forKey: "nul\u{0}byte") == "nul%00byte")
        #expect(storage.cacheFileName(forKey: "plain", forcedExtension: "jpg") == "plain.jpg")
        let long = String(repeating: "x", count: 300)
        #expect(storage.cacheFileName(forKey: long) == long.kf.sha256)
        #expect(storage.cacheFileName(forKey: long, forcedExtension: "jpg") == "\(long.kf.sha256).jpg")
        #expect(storage.cacheFileName(forKey: "") == "".kf.sha256)

        try storage.store(value: Data([7]), forKey: "a/b%c")
        #expect(FileManager.default.fileExists(atPath: storage.directoryURL.appendingPathComponent("a%2Fb%25c").path))
        #expect(try storage.value(forKey: "a/b%c") == Data([7]))
    }

    @Test func defaultFolderIsTheUserCacheFolder() {
        let config = DiskStorage.Config(name: "named", sizeLimit: 0)
        let parent = DiskStorage.Config.defaultParentDirectory()
        #expect(config.cacheFolderURL.path == parent.appendingPathComponent("com.onevcat.Kingfisher.ImageCache.named").path)
        if let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            #expect(parent.path == URL(fileURLWithPath: xdg).path)
        } else {
            #expect(parent.lastPathComponent == ".cache")
        }
    }

    @Test func entriesExpireByTheirOwnExpiration() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage(expiration: .seconds(100))
        try storage.store(value: Data([1]), forKey: "default")
        try storage.store(value: Data([2]), forKey: "short", expiration: .seconds(10))
        try storage.store(value: Data([3]), forKey: "never", expiration: .never)
        try storage.store(value: Data([4]), forKey: "expired", expiration: .expired)
        try storage.store(value: Data([5]), forKey: "date", expiration: .date(fixture.clock.now.addingTimeInterval(50)))
        #expect(!storage.isCached(forKey: "expired"))
        #expect(!FileManager.default.fileExists(atPath: storage.cacheFileURL(forKey: "expired").path))
        let expiries = Dictionary(uniqueKeysWithValues: try storage.entries().map { ($0.key ?? "", $0.expiration) })
        #expect(expiries["never"] == .distantFuture)
        #expect(expiries["short"] == fixture.clock.now.addingTimeInterval(10))

        fixture.clock.advance(by: 11)
        #expect(!storage.isCached(forKey: "short"))
        #expect(try storage.value(forKey: "short") == nil)
        #expect(!FileManager.default.fileExists(atPath: storage.cacheFileURL(forKey: "short").path))
        #expect(try storage.value(forKey: "date", extendingExpiration: .none) == Data([5]))
        fixture.clock.advance(by: 40)
        #expect(try storage.value(forKey: "date") == nil)
        #expect(try storage.value(forKey: "default", extendingExpiration: .none) == Data([1]))
        fixture.clock.advance(by: 50)
        #expect(try storage.removeExpiredValues() == [storage.cacheFileURL(forKey: "default")])
        #expect(try storage.value(forKey: "never") == Data([3]))
        #expect(try storage.entries().map(\.key) == ["never"])
    }

    @Test func readsExtendExpirationPerMode() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage(expiration: .seconds(100))
        for key in ["none", "cacheTime", "expirationTime", "isCached"] {
            try storage.store(value: Data(key.utf8), forKey: key, expiration: .seconds(10))
        }
        fixture.clock.advance(by: 8)
        #expect(try storage.value(forKey: "none", extendingExpiration: .none) != nil)
        #expect(try storage.value(forKey: "cacheTime", extendingExpiration: .cacheTime) != nil)
        #expect(try storage.value(forKey: "expirationTime", extendingExpiration: .expirationTime(.seconds(60))) != nil)
        #expect(storage.isCached(forKey: "isCached"))
        fixture.clock.advance(by: 4) // 12 s after the store
        #expect(try storage.value(forKey: "none") == nil)
        #expect(!storage.isCached(forKey: "isCached"))
        #expect(try storage.value(forKey: "cacheTime", extendingExpiration: .none) != nil)
        #expect(try storage.value(forKey: "expirationTime", extendingExpiration: .none) != nil)
        fixture.clock.advance(by: 7) // 19 s: the cacheTime read restarted 10 s at 8 s
        #expect(try storage.value(forKey: "cacheTime") == nil)
        #expect(try storage.value(forKey: "expirationTime", extendingExpiration: .none) != nil)
        fixture.clock.advance(by: 50) // 69 s: 60 s from the read at 8 s
        #expect(try storage.value(forKey: "expirationTime") == nil)
    }

    @Test func metadataSurvivesANewBackend() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let start = fixture.clock.now
        do {
            let storage = try fixture.storage()
            try storage.store(value: Data([1]), forKey: "a", expiration: .seconds(10))
            try storage.store(value: Data([2, 2]), forKey: "b", expiration: .seconds(1000))
            fixture.clock.advance(by: 5)
            #expect(try storage.value(forKey: "a") == Data([1]))
        }
        let reopened = try fixture.storage()
        let entries = Dictionary(uniqueKeysWithValues: try reopened.entries().map { ($0.key ?? "", $0) })
        #expect(entries["a"]?.lastAccess == start.addingTimeInterval(5))
        #expect(entries["a"]?.expiration == start.addingTimeInterval(15))
        #expect(entries["b"]?.lastAccess == start)
        #expect(entries["b"]?.expiration == start.addingTimeInterval(1000))
        #expect(entries["b"]?.size == 2)
        #expect(try reopened.totalSize() == 3)
        fixture.clock.advance(by: 12) // 17 s: a expired (15 s), b alive
        #expect(try reopened.value(forKey: "a") == nil)
        #expect(try reopened.value(forKey: "b") == Data([2, 2]))
    }

    @Test func sizeLimitKeepsTheMostRecentlyUsed() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage(sizeLimit: 1000)
        let block = Data(repeating: 9, count: 200)
        for index in 0..<5 {
            try storage.store(value: block, forKey: "k\(index)")
            fixture.clock.advance(by: 1)
        }
        #expect(try storage.totalSize() == 1000)
        #expect(try storage.value(forKey: "k0") == block)
        fixture.clock.advance(by: 1)
        try storage.store(value: block, forKey: "k5") // 1200 > 1000: trim to 500
        #expect(try storage.totalSize() == 400)
        #expect(Set(try storage.entries().compactMap(\.key)) == ["k0", "k5"])
        for index in 1...4 {
            #expect(!FileManager.default.fileExists(atPath: storage.cacheFileURL(forKey: "k\(index)").path))
        }
        // The explicit sweep does the same for a limit lowered later, oldest first.
        try storage.store(value: Data(repeating: 1, count: 50), forKey: "small")
        #expect(try storage.value(forKey: "k5") == block)
        storage.config.sizeLimit = 400 // 450 > 400: down to 200
        #expect(try storage.removeSizeExceededValues() == ["k0", "small"].map { storage.cacheFileURL(forKey: $0) })
        #expect(try storage.entries().compactMap(\.key) == ["k5"])
        #expect(try storage.removeSizeExceededValues().isEmpty)
    }

    @Test func aFileDeletedBehindTheCacheIsAMiss() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        try storage.store(value: Data([1, 2]), forKey: "a")
        try storage.store(value: Data([3]), forKey: "b")
        try FileManager.default.removeItem(at: storage.cacheFileURL(forKey: "a"))
        #expect(!storage.isCached(forKey: "a"))
        #expect(try storage.value(forKey: "a") == nil)
        #expect(try storage.entries().compactMap(\.key) == ["b"])
        #expect(try storage.totalSize() == 1)
        // A file replaced by something of another size is not trusted either.
        try Data([0, 0, 0, 0]).write(to: storage.cacheFileURL(forKey: "b"))
        #expect(try storage.value(forKey: "b") == nil)
        #expect(try storage.entries().isEmpty)
    }

    @Test func aDeletedFolderIsRecreatedByTheNextStore() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        try storage.store(value: Data([1]), forKey: "a")
        try FileManager.default.removeItem(at: storage.directoryURL)
        #expect(try storage.value(forKey: "a") == nil)
        #expect(!FileManager.default.fileExists(atPath: storage.directoryURL.path))
        try storage.store(value: Data([2]), forKey: "b")
        #expect(try storage.value(forKey: "b") == Data([2]))
        #expect(try storage.value(forKey: "a") == nil)
        #expect(try fixture.storage().entries().compactMap(\.key) == ["b"])
    }

    @Test func anUncreatableFolderIsCannotCreateDirectory() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let file = fixture.parent.appendingPathComponent("regular-file")
        try Data([1]).write(to: file)
        var config = fixture.config()
        config.directory = file
        let thrown = #expect(throws: KingfisherError.self) { try DiskStorage.Backend<Data>(config: config) }
        #expect(thrown?.errorCode == 3005)
        let lenient = DiskStorage.Backend<Data>(noThrowConfig: config, creatingDirectory: true)
        #expect(!lenient.isReady)
        // A read tells the caller the storage is broken rather than answering a miss.
        let readError = #expect(throws: KingfisherError.self) { try lenient.value(forKey: "a") }
        guard case .cacheError(reason: .diskStorageIsNotReady(let url))? = readError else {
            Issue.record("expected diskStorageIsNotReady, got \(String(describing: readError))")
            return
        }
        #expect(url == lenient.directoryURL)
        #expect(!lenient.isCached(forKey: "a"))
        let storeError = #expect(throws: KingfisherError.self) { try lenient.store(value: Data([1]), forKey: "a") }
        #expect(storeError?.errorCode == 3005)

        // Once the folder can be made, a store makes it and the storage is ready again.
        try FileManager.default.removeItem(at: file)
        try lenient.store(value: Data([7]), forKey: "a")
        #expect(lenient.isReady)
        #expect(try lenient.value(forKey: "a") == Data([7]))
    }

    @Test func aLenientStorageCreatesItsFolderOnTheFirstStore() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = DiskStorage.Backend<Data>(noThrowConfig: fixture.config(), creatingDirectory: false)
        #expect(!FileManager.default.fileExists(atPath: storage.directoryURL.path))
        #expect(try storage.value(forKey: "a") == nil)
        try storage.store(value: Data([1]), forKey: "a")
        #expect(try storage.value(forKey: "a") == Data([1]))
    }

    @Test func removeAllEmptiesTheFolderForEveryone() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        let other = try fixture.storage()
        for index in 0..<5 { try storage.store(value: Data([UInt8(index)]), forKey: "k\(index)") }
        #expect(try other.value(forKey: "k3") == Data([3]))
        try storage.removeAll()
        #expect(try storage.entries().isEmpty)
        #expect(try other.value(forKey: "k3") == nil)
        #expect(try other.totalSize() == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: storage.directoryURL.path)
        #expect(names == [".kf"])
        try storage.store(value: Data([1]), forKey: "again")
        #expect(try other.value(forKey: "again") == Data([1]))
    }
}
