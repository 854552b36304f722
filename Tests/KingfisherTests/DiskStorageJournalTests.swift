import Foundation
import Testing
@testable import Kingfisher

/// The journal: framing, torn tails, sharing between storages, compaction, orphans.
@Suite struct DiskStorageJournalTests {
    static func journalURL(_ storage: DiskStorage.Backend<Data>) -> URL {
        storage.directoryURL.appendingPathComponent(".kf/journal")
    }

    static func appendToJournal(_ storage: DiskStorage.Backend<Data>, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forWritingTo: journalURL(storage))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    @Test func recordsRoundTripAndDamageIsDetected() {
        let records: [DiskJournalRecord] = [
            .put(name: "n", key: "https://k", size: 12, lastAccess: 1.5, expiry: 99, expiration: .seconds(10)),
            .put(name: "m", key: nil, size: 0, lastAccess: 2, expiry: Date.distantFuture.timeIntervalSince1970, expiration: .never),
            .put(name: "d", key: "", size: 1, lastAccess: 2, expiry: 3, expiration: .date(Date(timeIntervalSince1970: 3))),
            .put(name: "e", key: "k", size: 1, lastAccess: 2, expiry: 3, expiration: .days(4)),
            .touch(name: "n", lastAccess: 3, expiry: 4),
            .remove(name: "n"),
        ]
        for record in records {
            var bytes: [UInt8] = []
            record.encode(into: &bytes)
            bytes.withUnsafeBytes { buffer in
                guard case .record(let decoded, let length) = DiskJournalRecord.decode(buffer) else {
                    Issue.record("\(record) did not decode")
                    return
                }
                #expect(decoded == record && length == bytes.count)
                guard case .incomplete = DiskJournalRecord.decode(UnsafeRawBufferPointer(rebasing: buffer.dropLast())) else {
                    Issue.record("a cut record is not incomplete")
                    return
                }
            }
            bytes[bytes.count - 1] ^= 0x40
            bytes.withUnsafeBytes { buffer in
                guard case .corrupt = DiskJournalRecord.decode(buffer) else {
                    Issue.record("a damaged record is not corrupt")
                    return
                }
            }
        }
    }

    @Test func aTornTailIsIgnoredThenCutOff() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        do {
            let storage = try fixture.storage()
            try storage.store(value: Data([1]), forKey: "a")
            try storage.store(value: Data([2]), forKey: "b")
            // What a writer killed in the middle of an append leaves: part of a frame.
            var bytes: [UInt8] = []
            DiskJournalRecord.put(name: "c".kf.sha256, key: "c", size: 1, lastAccess: 0, expiry: 1e12, expiration: .never)
                .encode(into: &bytes)
            try Self.appendToJournal(storage, Array(bytes.prefix(bytes.count - 5)))
        }
        let reopened = try fixture.storage()
        #expect(Set(try reopened.entries().compactMap(\.key)) == ["a", "b"])
        try reopened.store(value: Data([3]), forKey: "c")
        let third = try fixture.storage()
        #expect(Set(try third.entries().compactMap(\.key)) == ["a", "b", "c"])
        #expect(try third.value(forKey: "c") == Data([3]))

        // Garbage with a plausible length but a wrong checksum is cut off the same way.
        try Self.appendToJournal(third, [4, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9, 9])
        try third.store(value: Data([4]), forKey: "d")
        let fourth = try fixture.storage()
        #expect(Set(try fourth.entries().compactMap(\.key)) == ["a", "b", "c", "d"])
    }

    @Test func anUnseenKeyIsAnsweredFromMemory() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        // Put an entry on disk the way another process would, but without telling anyone.
        let name = "sneaky".kf.sha256
        try Data([5]).write(to: storage.directoryURL.appendingPathComponent(name))
        var bytes: [UInt8] = []
        DiskJournalRecord.put(name: name, key: "sneaky", size: 1, lastAccess: fixture.clock.now.timeIntervalSince1970,
                              expiry: 1e12, expiration: .never).encode(into: &bytes)
        try Self.appendToJournal(storage, bytes)
        // The miss does not look at the disk: the shared generation did not move.
        #expect(try storage.value(forKey: "sneaky") == nil)
        #expect(!storage.isCached(forKey: "sneaky"))
        // Any store through a storage bumps it, and the next miss reads the journal tail.
        try fixture.storage().store(value: Data([6]), forKey: "other")
        #expect(try storage.value(forKey: "sneaky") == Data([5]))
        #expect(try storage.value(forKey: "other") == Data([6]))
    }

    @Test func storagesOnOneFolderSeeEachOther() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let first = try fixture.storage()
        let second = try fixture.storage()
        try first.store(value: Data([1]), forKey: "a")
        #expect(try second.value(forKey: "a") == Data([1]))
        try second.store(value: Data([2, 2]), forKey: "a")
        #expect(try first.value(forKey: "a") == Data([2, 2]))
        try second.remove(forKey: "a")
        #expect(try first.value(forKey: "a") == nil)
        #expect(try first.totalSize() == 0)
    }

    @Test func compactionShrinksTheJournalAndKeepsEveryEntry() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        let watcher = try fixture.storage()
        let longKey = String(repeating: "k", count: 2000)
        try storage.store(value: Data([1]), forKey: "kept")
        #expect(try watcher.value(forKey: "kept") == Data([1]))
        for round in 0..<600 {
            try storage.store(value: Data([UInt8(round % 256)]), forKey: longKey)
        }
        let journalSize = try FileManager.default.attributesOfItem(atPath: Self.journalURL(storage).path)[.size] as? Int
        #expect((journalSize ?? .max) < 1 << 20)
        try storage.store(value: Data([7]), forKey: "after")
        #expect(try watcher.value(forKey: "after") == Data([7]))
        #expect(try watcher.value(forKey: longKey) == Data([UInt8(599 % 256)]))
        #expect(try watcher.value(forKey: "kept") == Data([1]))
        #expect(Set(try fixture.storage().entries().compactMap(\.key)) == ["kept", "after", longKey])
    }

    @Test func aSweepAdoptsOrphansAndDeletesStaleTemporaryFiles() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage(expiration: .seconds(100))
        try storage.store(value: Data([1]), forKey: "known")
        // A file renamed into place by a process killed before it recorded it.
        try Data([4, 4]).write(to: storage.cacheFileURL(forKey: "orphan"))
        // A temporary file of a process that no longer exists (pids stay below 2^22).
        let deadTemporary = storage.directoryURL.appendingPathComponent(".kf-tmp-99999999-1")
        try Data([9]).write(to: deadTemporary)
        // One of a live process (this one) that is still being written.
        let liveTemporary = storage.directoryURL.appendingPathComponent(".kf-tmp-\(getpid())-999999")
        try Data([9]).write(to: liveTemporary)
        #expect(try storage.value(forKey: "orphan") == nil)

        #expect(try storage.removeExpiredValues().isEmpty)
        #expect(try storage.value(forKey: "orphan") == Data([4, 4]))
        #expect(!FileManager.default.fileExists(atPath: deadTemporary.path))
        #expect(FileManager.default.fileExists(atPath: liveTemporary.path))
        let adopted = try storage.entries().first { $0.fileURL.lastPathComponent == "orphan".kf.sha256 }
        #expect(adopted?.key == nil && adopted?.size == 2)
        #expect(try storage.totalSize() == 3)
        fixture.clock.advance(by: 101)
        #expect(Set(try storage.removeExpiredValues()) == Set(["known", "orphan"].map { storage.cacheFileURL(forKey: $0) }))
    }

    @Test func threadsOfOneProcessShareAStorage() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try fixture.storage()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                let key = "t\(thread)-\(index)"
                try? storage.store(value: Data(key.utf8), forKey: key)
                #expect((try? storage.value(forKey: key)) == Data(key.utf8))
            }
        }
        #expect(try storage.entries().count == 400)
        #expect(try fixture.storage().value(forKey: "t7-49") == Data("t7-49".utf8))
    }
}
