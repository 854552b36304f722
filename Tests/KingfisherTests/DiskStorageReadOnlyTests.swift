import Foundation
import Testing
@testable import Kingfisher
#if canImport(Glibc)
import Glibc
#endif

/// A cache folder that cannot be written (issue 19, part 3): a read-only filesystem from the
/// start, the immutable attribute set while the cache runs, and files truncated behind its back.
@Suite(.serialized) struct DiskStorageReadOnlyTests {
    typealias Kit = DiskStorageFaultTests

    @Test(.enabled(if: DiskFaultKit.canMount, "needs root and `mount -o remount,ro` on a tmpfs (chmod does not stop root)"))
    func aReadOnlyFolderServesWhatItHoldsAndRefusesChangesClearly() throws {
        let disk = try TinyDisk(size: 1 << 20)
        defer { disk.unmount() }
        do {
            let writer = try DiskStorage.Backend<Data>(config: Kit.config(disk.folder))
            for index in 0..<5 { try writer.store(value: Kit.value(index, size: 3000), forKey: "k\(index)") }
        }
        // Nothing holds a file open for writing once the storage is gone, so the remount works.
        #expect(disk.remountReadOnly())
        // The image cache's way of opening it: never throws.
        let storage = DiskStorage.Backend<Data>(noThrowConfig: Kit.config(disk.folder), creatingDirectory: true)
        #expect(storage.isReady)
        for index in 0..<5 {
            #expect(try storage.value(forKey: "k\(index)") == Kit.value(index, size: 3000))
        }
        #expect(storage.isCached(forKey: "k0") && !storage.isCached(forKey: "nope"))
        #expect(try storage.value(forKey: "nope") == nil)
        #expect {
            try storage.store(value: Kit.value(9, size: 10), forKey: "new")
        } throws: { error in
            guard case .cacheError(reason: .cannotCreateCacheFile) = error as? KingfisherError else { return false }
            return DiskFaultKit.posixCode(error) == .EROFS
        }
        #expect(throws: KingfisherError.self) { try storage.remove(forKey: "k0") }
        #expect(try storage.value(forKey: "k0") == Kit.value(0, size: 3000))
        // The throwing initialiser says the index cannot be written, as documented.
        #expect { try DiskStorage.Backend<Data>(config: Kit.config(disk.folder)) } throws: { error in
            guard case .cacheError(reason: .cacheIndexFailed) = error as? KingfisherError else { return false }
            return DiskFaultKit.posixCode(error) == .EROFS
        }
        #expect(disk.remountReadWrite())
        try storage.store(value: Kit.value(9, size: 10), forKey: "new")
        #expect(try storage.value(forKey: "new") == Kit.value(9, size: 10))
        try storage.remove(forKey: "k0")
        #expect(try storage.value(forKey: "k0") == nil)
        FaultFigures.report("disk-read-only", ["entries_served": "5"])
    }

    @Test(.enabled(if: DiskFaultKit.canMakeImmutable, "needs root and `chattr +i` on the temporary folder's filesystem"))
    func aFolderMadeImmutableUnderARunningCacheRefusesChangesAndKeepsServing() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try DiskStorage.Backend<Data>(config: Kit.config(fixture.parent))
        for index in 0..<5 { try storage.store(value: Kit.value(index, size: 2000), forKey: "k\(index)") }
        let folder = storage.directoryURL.path
        #expect(DiskFaultKit.run(DiskFaultKit.tool("chattr"), ["+i", folder]))
        defer { DiskFaultKit.run(DiskFaultKit.tool("chattr"), ["-i", folder]) }

        #expect {
            try storage.store(value: Kit.value(9, size: 10), forKey: "new")
        } throws: { error in
            guard case .cacheError(reason: .cannotCreateCacheFile) = error as? KingfisherError else { return false }
            return DiskFaultKit.posixCode(error) == .EPERM
        }
        #expect(try storage.value(forKey: "new") == nil)
        // A removal that cannot delete the file says so and keeps the entry.
        #expect {
            try storage.remove(forKey: "k1")
        } throws: { error in
            guard case .cacheError(reason: .invalidURLResource) = error as? KingfisherError else { return false }
            return DiskFaultKit.posixCode(error) == .EPERM
        }
        for index in 0..<5 {
            #expect(try storage.value(forKey: "k\(index)") == Kit.value(index, size: 2000))
        }
        #expect(Kit.temporaryFiles(storage).isEmpty)

        #expect(DiskFaultKit.run(DiskFaultKit.tool("chattr"), ["-i", folder]))
        try storage.remove(forKey: "k1")
        try storage.store(value: Kit.value(9, size: 10), forKey: "new")
        // A sweep adopts files no entry names: the removed one must not come back.
        _ = try storage.removeExpiredValues()
        #expect(try storage.value(forKey: "k1") == nil)
        #expect(try storage.value(forKey: "new") == Kit.value(9, size: 10))
        FaultFigures.report("disk-immutable", ["entries_served": "5"])
    }

    @Test func filesTruncatedInPlaceBehindTheCacheAreMissesNeverTornValues() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        let storage = try DiskStorage.Backend<Data>(config: Kit.config(fixture.parent))
        for index in 0..<4 { try storage.store(value: Kit.value(index, size: 5000), forKey: "k\(index)") }
        // In place (same inode), as a crashed copy or a disk tool would leave them.
        #expect(truncate(storage.cacheFileURL(forKey: "k0").path, 2500) == 0)
        #expect(truncate(storage.cacheFileURL(forKey: "k1").path, 0) == 0)
        #expect(try storage.value(forKey: "k0") == nil)
        #expect(try storage.value(forKey: "k1") == nil)
        #expect(!storage.isCached(forKey: "k0") || !FileManager.default.fileExists(atPath: storage.cacheFileURL(forKey: "k0").path))
        #expect(try storage.value(forKey: "k2") == Kit.value(2, size: 5000))
        #expect(Set(try storage.entries().compactMap(\.key)) == ["k2", "k3"])
        try storage.store(value: Kit.value(0, size: 5000), forKey: "k0")
        #expect(try storage.value(forKey: "k0") == Kit.value(0, size: 5000))

        // The journal cut in half in place: what it still names is served whole, the rest is a miss.
        let journal = storage.directoryURL.appendingPathComponent(".kf/journal").path
        let size = ((try FileManager.default.attributesOfItem(atPath: journal))[.size] as? Int) ?? 0
        #expect(truncate(journal, off_t(size / 2)) == 0)
        let fresh = try DiskStorage.Backend<Data>(config: Kit.config(fixture.parent))
        for index in 0..<4 {
            let read = try fresh.value(forKey: "k\(index)")
            #expect(read == nil || read == Kit.value(index, size: 5000), "k\(index)")
        }
        try fresh.store(value: Kit.value(7, size: 100), forKey: "k7")
        #expect(try storage.value(forKey: "k7") == Kit.value(7, size: 100))
    }
}
