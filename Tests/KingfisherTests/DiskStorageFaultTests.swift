import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher
#if canImport(Glibc)
import Glibc
#endif

/// Disk faults under a running cache (issue 19, part 3), made with mechanisms that stop root too:
/// a tmpfs of a few hundred KB that fills up, the same tmpfs remounted read-only, and the
/// immutable attribute (`chattr +i`) set on the folder while the cache uses it. Each fault is a
/// clear `KingfisherError` or a miss, what was stored keeps being served whole, and writes work
/// again once the fault is gone. Already covered elsewhere, so not repeated: a file deleted or
/// replaced by one of another size (`DiskStorageTests.aFileDeletedBehindTheCacheIsAMiss`), a
/// deleted folder (`aDeletedFolderIsRecreatedByTheNextStore`), a torn journal tail
/// (`DiskStorageJournalTests.aTornTailIsIgnoredThenCutOff`), a writer killed mid-store
/// (`DiskStorageProcessTests`).
@Suite(.serialized) struct DiskStorageFaultTests {
    static func config(_ parent: URL) -> DiskStorage.Config {
        var config = DiskStorage.Config(name: "faults", sizeLimit: 0, directory: parent)
        config.expiration = .never
        return config
    }

    /// Bytes that differ per `index`, so a value read back under the wrong key or torn shows.
    static func value(_ index: Int, size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index &* 131 &+ ($0 >> 8)) })
    }

    static func temporaryFiles(_ storage: DiskStorage.Backend<Data>) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: storage.directoryURL.path)) ?? [])
            .filter { $0.hasPrefix(DiskFileName.temporaryPrefix) }
    }

    @Test(.enabled(if: DiskFaultKit.canMount, "needs root and `mount -t tmpfs` (a tiny filesystem that really fills up)"))
    func aFullDiskFailsStoresClearlyKeepsServingAndTakesWritesOnceSpaceReturns() throws {
        let disk = try TinyDisk(size: 256 * 1024)
        defer { disk.unmount() }
        var stored: Set<Int> = []
        var firstError = ""
        do {
            let storage = try DiskStorage.Backend<Data>(config: Self.config(disk.folder))
            // Stores until the disk is full, then keeps storing (sizes from 1 byte to 12 KB).
            for index in 0..<60 {
                let size = index < 40 ? 10_000 + index * 37 : 1 + (index - 40) * 600
                do {
                    try storage.store(value: Self.value(index, size: size), forKey: "k\(index)")
                    stored.insert(index)
                } catch {
                    #expect(error is KingfisherError)
                    #expect(DiskFaultKit.posixCode(error) == .ENOSPC, "\(error)")
                    if firstError.isEmpty { firstError = "\(error)" }
                }
            }
            #expect(!firstError.isEmpty, "256 KB never filled up")
            #expect(Self.temporaryFiles(storage).isEmpty)
            for index in 0..<60 {
                let size = index < 40 ? 10_000 + index * 37 : 1 + (index - 40) * 600
                let read = try storage.value(forKey: "k\(index)")
                #expect(read == (stored.contains(index) ? Self.value(index, size: size) : nil), "k\(index)")
            }
            #expect(disk.resize(4 << 20))
            try storage.store(value: Self.value(999, size: 50_000), forKey: "after")
            #expect(try storage.value(forKey: "after") == Self.value(999, size: 50_000))
        }
        // A new storage replays the same journal: nothing torn in it either.
        let fresh = try DiskStorage.Backend<Data>(config: Self.config(disk.folder))
        for index in stored {
            let size = index < 40 ? 10_000 + index * 37 : 1 + (index - 40) * 600
            #expect(try fresh.value(forKey: "k\(index)") == Self.value(index, size: size))
        }
        #expect(try fresh.value(forKey: "after") == Self.value(999, size: 50_000))
        FaultFigures.report("disk-full", ["tmpfs_kb": "256", "stored": "\(stored.count)", "refused": "\(60 - stored.count)"])
    }

    @Test(.enabled(if: DiskFaultKit.canMount, "needs root and `mount -t tmpfs` (a tiny filesystem that really fills up)"))
    func aJournalAppendThatHitsAFullDiskLeavesNoTornRecordAndNoUnrecordedFile() throws {
        let disk = try TinyDisk(size: 512 * 1024)
        defer { disk.unmount() }
        let storage = try DiskStorage.Backend<Data>(config: Self.config(disk.folder))
        let journal = storage.directoryURL.appendingPathComponent(".kf/journal").path
        func journalSize() -> Int { ((try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int) ?? -1 }
        let empty = journalSize()
        try storage.store(value: Self.value(1, size: 4096), forKey: "a")
        let putLength = journalSize() - empty
        // Reads append small records: stop when the journal's last page has less room than a put.
        for _ in 0..<4096 {
            let room = 4096 - journalSize() % 4096
            if room < putLength { break }
            _ = try storage.value(forKey: "a")
        }
        let filler = try DiskFaultKit.fill(disk.folder, leavingPages: 1)
        #expect(DiskFaultKit.freePages(disk.folder) == 1)
        let before = journalSize()
        // The value takes the last page; the journal record needs one more.
        #expect {
            try storage.store(value: Self.value(2, size: 4096), forKey: "b")
        } throws: { error in
            guard case .cacheError(reason: .cacheIndexFailed) = error as? KingfisherError else { return false }
            return DiskFaultKit.posixCode(error) == .ENOSPC
        }
        #expect(journalSize() == before, "the partial record is cut off")
        #expect(!FileManager.default.fileExists(atPath: storage.cacheFileURL(forKey: "b").path))
        #expect(try storage.value(forKey: "b") == nil)
        #expect(try storage.value(forKey: "a") == Self.value(1, size: 4096))
        let fresh = try DiskStorage.Backend<Data>(config: Self.config(disk.folder))
        #expect(try fresh.value(forKey: "a") == Self.value(1, size: 4096))
        #expect(try fresh.value(forKey: "b") == nil)
        // A sweep finds nothing to adopt: the failed store left no file.
        _ = try fresh.removeExpiredValues()
        #expect(try fresh.value(forKey: "b") == nil)
        try FileManager.default.removeItem(atPath: filler)
        try storage.store(value: Self.value(2, size: 4096), forKey: "b")
        #expect(try fresh.value(forKey: "b") == Self.value(2, size: 4096))
        FaultFigures.report("disk-full-journal", ["put_record_bytes": "\(putLength)"])
    }

    @Test(.enabled(if: DiskFaultKit.canMount, "needs root and `mount -t tmpfs` (a tiny filesystem that really fills up)"))
    func aCacheOpenedOnAFullDiskFailsWithAnErrorNotASignal() async throws {
        let disk = try TinyDisk(size: 128 * 1024)
        defer { disk.unmount() }
        let filler = try DiskFaultKit.fill(disk.folder, leavingPages: 0)
        // Not one free page: touching a shared mapping of a file hole (the generation counter,
        // made with ftruncate) needs a page the filesystem cannot give, which is a SIGBUS, not an
        // error. Run it in a child process so that a crash fails this test, not the test runner.
        let full = try await Self.runStress(["open", disk.folder.path, "faults", "k"])
        #expect(full.status == 0, "cache-stress died: \(full.output)")
        #expect(full.output.contains("error"))
        try FileManager.default.removeItem(atPath: filler)
        let roomy = try await Self.runStress(["open", disk.folder.path, "faults", "k"])
        #expect(roomy.status == 0 && roomy.output.contains("stored"), "\(roomy.output)")
        FaultFigures.report("disk-full-open", ["child_exit": "\(full.status)"])
    }

    /// Runs `cache-stress` with `arguments`; its exit status (128 + the signal when killed) and output.
    static func runStress(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let run = try await ChildProcess.run(try DiskStorageProcessTests.stressURL().path, arguments, mergingStandardError: true)
        let status = run.termination.wasSignalled ? 128 + run.termination.status : run.termination.status
        return (status, String(decoding: run.standardOutput, as: UTF8.self))
    }
}
