import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit counter shared by every process using one cache folder (`.kf/generation`, mapped into
/// memory): writers bump it after each journal change, readers compare it with what they last saw.
///
/// Reading it is a memory load, so a lookup that misses the index can tell whether another
/// process changed the journal without a system call. The file is created 4 KB long by a writer
/// holding the folder's lock and never shrunk by the storage; it is mapped only when at least
/// 8 bytes long (a shorter file is ignored and lookups fall back to reading the journal), and only
/// once its first block is allocated (on a full disk it is not mapped either). Like any
/// shared mapping, it relies on nobody truncating the file while it is mapped (deleting it, or the
/// whole folder, is harmless: the mapping keeps the old file alive).
struct DiskGeneration {
    private let pointer: UnsafeMutablePointer<Atomic<UInt64>>
    let identity: FileIdentity
    private static let fileLength = 4096

    /// Maps the counter file at `path`, creating it when `create` is true; nil when that fails.
    init?(path: String, create: Bool) {
        let fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o644)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        if status.st_size < 8 {
            guard create, ftruncate(fd, off_t(Self.fileLength)) == 0 else { return nil }
        }
        // A store through the mapping into a hole the filesystem cannot fill (a full disk) is a
        // SIGBUS, not an error: reserve the counter's block now, when failing is still an error.
        guard posix_fallocate(fd, 0, 8) == 0 else { return nil }
        guard let address = mmap(nil, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0),
              address != MAP_FAILED else { return nil }
        pointer = address.bindMemory(to: Atomic<UInt64>.self, capacity: 1)
        identity = FileIdentity(status)
    }

    var value: UInt64 { pointer.pointee.load(ordering: .acquiring) }

    func bump() {
        pointer.pointee.wrappingAdd(1, ordering: .releasing)
    }

    func unmap() {
        munmap(UnsafeMutableRawPointer(pointer), 8)
    }
}
