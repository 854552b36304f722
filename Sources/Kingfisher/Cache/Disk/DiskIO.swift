import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which file an open descriptor or a path names, to tell a file from its replacement.
struct FileIdentity: Equatable {
    var device: UInt64
    var inode: UInt64

    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }
}

/// The few system calls the disk storage makes, with `EINTR` retried and `errno` turned into errors.
enum DiskIO {
    static func posixError(_ code: Int32 = errno) -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
    }

    /// What reading a cache file found.
    enum ReadResult {
        case data(Data)
        case missing
        /// The file's size is not `expectedSize`: it was replaced or damaged.
        case sizeMismatch
    }

    /// Reads the whole file at `path` when it holds exactly `expectedSize` bytes.
    static func readFile(atPath path: String, expectedSize: Int) throws -> ReadResult {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .missing }
            throw posixError(code)
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw posixError() }
        guard Int(status.st_size) == expectedSize, (status.st_mode & S_IFMT) == S_IFREG else { return .sizeMismatch }
        guard expectedSize > 0 else { return .data(Data()) }
        guard let buffer = malloc(expectedSize) else { throw posixError(ENOMEM) }
        var done = 0
        while done < expectedSize {
            let count = read(fd, buffer + done, expectedSize - done)
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                let code = errno
                free(buffer)
                throw posixError(code)
            }
            if count == 0 { break }
            done += count
        }
        guard done == expectedSize else {
            free(buffer)
            return .sizeMismatch
        }
        return .data(Data(bytesNoCopy: buffer, count: expectedSize, deallocator: .free))
    }

    /// Reads the file at `path` to its end in one buffer sized from `fstat` (growing if the file
    /// grows meanwhile), in pieces of at most 1 MB with `isCancelled` asked between them.
    ///
    /// A regular file usually costs four system calls: open, fstat, one read, close. Throws the
    /// system's error as a `POSIXError`, and `CancellationError` when `isCancelled` says so.
    static func readToEnd(atPath path: String, isCancelled: () -> Bool) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError() }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw posixError() }
        let isRegular = (status.st_mode & S_IFMT) == S_IFREG
        if (status.st_mode & S_IFMT) == S_IFDIR { throw posixError(EISDIR) }
        // One byte more than the size, so a file that did not grow ends with a short read.
        var capacity = max(Int(isRegular ? status.st_size : 0), 0) + 1
        guard var buffer = malloc(capacity) else { throw posixError(ENOMEM) }
        var done = 0
        while true {
            if done == capacity {
                capacity *= 2
                guard let grown = realloc(buffer, capacity) else {
                    free(buffer)
                    throw posixError(ENOMEM)
                }
                buffer = grown
            }
            if isCancelled() {
                free(buffer)
                throw CancellationError()
            }
            let wanted = min(capacity - done, 1 << 20)
            let count = read(fd, buffer + done, wanted)
            if count < 0, errno == EINTR { continue }
            if count < 0 {
                let code = errno
                free(buffer)
                throw posixError(code)
            }
            done += count
            // A regular file returns fewer bytes than asked only at its end.
            if count == 0 || (isRegular && count < wanted) { break }
        }
        guard done > 0 else {
            free(buffer)
            return Data()
        }
        return Data(bytesNoCopy: buffer, count: done, deallocator: .free)
    }

    /// Creates the file at `path` (which must not exist) holding `data`; removes it on failure.
    static func writeNewFile(atPath path: String, data: Data) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw posixError() }
        do {
            try data.withUnsafeBytes { try writeAll(fd, $0) }
            guard close(fd) == 0 else { throw posixError() }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
    }

    /// Writes every byte of `bytes` at the descriptor's current position (the end, for `O_APPEND`).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let count = write(fd, base, left)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw posixError(count < 0 ? errno : EIO) }
            base += count
            left -= count
        }
    }

    /// The bytes of a file from some offset to its end, and the file's size.
    struct Tail {
        var bytes: [UInt8]
        var size: Int
    }

    /// Reads the bytes of `fd` from `offset` to its end.
    static func readTail(_ fd: Int32, from offset: Int) throws -> Tail {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw posixError() }
        let size = Int(status.st_size)
        guard size > offset else { return Tail(bytes: [], size: size) }
        var bytes = [UInt8](repeating: 0, count: size - offset)
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                pread(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done, off_t(offset + done))
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw posixError() }
            if count == 0 { break }
            done += count
        }
        bytes.removeLast(bytes.count - done)
        return Tail(bytes: bytes, size: size)
    }

    static func closeFile(_ fd: Int32) {
        _ = close(fd)
    }

    static func renameFile(_ source: String, _ destination: String) throws {
        guard rename(source, destination) == 0 else { throw posixError() }
    }

    /// Removes the file at `path`; true when it existed.
    @discardableResult
    static func removeFile(_ path: String) -> Bool {
        unlink(path) == 0
    }

    static func fileExists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Takes or releases the `flock` on `fd`, waiting for other holders.
    static func lockExclusive(_ fd: Int32) throws {
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw posixError() }
        }
    }

    static func unlock(_ fd: Int32) {
        _ = flock(fd, LOCK_UN)
    }

    /// Whether a process with this id exists (it may belong to another user).
    static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
