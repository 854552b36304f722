import Foundation
import KingfisherTestServer
@testable import Kingfisher
#if canImport(Glibc)
import Glibc
#endif

/// Real disk faults for the disk-cache fault tests (issue 19, part 3): a tiny tmpfs that fills up,
/// remounted read-only or larger, and the immutable attribute. All of them work for root, which
/// `chmod` does not stop; each says whether this machine allows it, so tests can be skipped
/// with the reason instead of passing without testing anything.
enum DiskFaultKit {
    /// Why tmpfs mounts cannot be made here, or nil when they can (root with `mount(8)`, not in a
    /// container that forbids mounting).
    static let mountUnavailableReason: String? = {
        guard getuid() == 0 else { return "mounting a tmpfs needs root" }
        guard let probe = try? TinyDisk(size: 64 * 1024) else { return "`mount -t tmpfs` failed here" }
        probe.unmount()
        return nil
    }()

    static var canMount: Bool { mountUnavailableReason == nil }

    /// Why `chattr +i` does not work in the temporary folder, or nil when it does.
    static let immutableUnavailableReason: String? = {
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("kf-chattr-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)) != nil else {
            return "cannot create a probe folder"
        }
        defer { try? FileManager.default.removeItem(at: probe) }
        guard run(tool("chattr"), ["+i", probe.path]) else { return "`chattr +i` fails on this filesystem or user" }
        let blocked = !FileManager.default.createFile(atPath: probe.appendingPathComponent("x").path, contents: Data())
        _ = run(tool("chattr"), ["-i", probe.path])
        return blocked ? nil : "an immutable folder still takes new files here"
    }()

    static var canMakeImmutable: Bool { immutableUnavailableReason == nil }

    /// Runs `tool` with `arguments`; true when it exits 0.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        (try? ChildProcess(tool, arguments).wait()) == .exited(0)
    }

    /// Fills the filesystem holding `folder` with a filler file until it is full, then frees
    /// `freePages` pages of it; returns the filler's path.
    @discardableResult
    static func fill(_ folder: URL, leavingPages freePages: Int) throws -> String {
        let path = folder.appendingPathComponent("filler").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let page = [UInt8](repeating: 0xAB, count: 4096)
        var size = 0
        while true {
            let written = page.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written <= 0 { break }
            size += written
        }
        let kept = max(0, (size / 4096 - freePages) * 4096)
        guard ftruncate(fd, off_t(kept)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return path
    }

    /// Free 4 KB pages on the filesystem holding `folder`.
    static func freePages(_ folder: URL) -> Int {
        var status = statvfs()
        guard statvfs(folder.path, &status) == 0 else { return -1 }
        return Int(status.f_bavail) * Int(status.f_frsize) / 4096
    }

    /// The POSIX error code at the bottom of a cache error, if any.
    static func posixCode(_ error: any Error) -> POSIXErrorCode? {
        guard case .cacheError(let reason)? = error as? KingfisherError else { return (error as? POSIXError)?.code }
        switch reason {
        case .cannotCreateCacheFile(_, _, _, let underlying), .cacheIndexFailed(_, let underlying),
             .invalidURLResource(let underlying, _, _), .cannotCreateDirectory(_, let underlying),
             .cannotLoadDataFromDisk(_, let underlying):
            return (underlying as? POSIXError)?.code
        default:
            return nil
        }
    }

    /// `/usr/bin/<name>`, or `/bin/<name>` on systems that keep it there.
    static func tool(_ name: String) -> String {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/" + name) ? "/usr/bin/" + name : "/bin/" + name
    }
}

/// A tmpfs of a few kilobytes mounted on a fresh temporary folder; unmount it when done.
struct TinyDisk {
    let folder: URL

    init(size: Int) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard DiskFaultKit.run(DiskFaultKit.tool("mount"), ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", folder.path]) else {
            try? FileManager.default.removeItem(at: folder)
            throw POSIXError(.EPERM)
        }
    }

    /// Changes the size limit in place (files stay).
    func resize(_ size: Int) -> Bool {
        DiskFaultKit.run(DiskFaultKit.tool("mount"), ["-o", "remount,size=\(size)", folder.path])
    }

    /// Makes the whole filesystem read-only (fails while a file on it is open for writing).
    func remountReadOnly() -> Bool { DiskFaultKit.run(DiskFaultKit.tool("mount"), ["-o", "remount,ro", folder.path]) }

    func remountReadWrite() -> Bool { DiskFaultKit.run(DiskFaultKit.tool("mount"), ["-o", "remount,rw", folder.path]) }

    func unmount() {
        DiskFaultKit.run(DiskFaultKit.tool("umount"), [folder.path])
        try? FileManager.default.removeItem(at: folder)
    }
}
