import Foundation
import KingfisherSynchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared metadata of one cache folder: the in-memory index, the journal it replays, and the
/// lock that makes changes from several threads and processes take turns.
///
/// Two mutexes, always taken in this order: `writer` (held for a whole change, together with the
/// `flock` on `.kf/lock`; `flock` belongs to an open file description, so threads of one process
/// need the mutex too) and `state` (held briefly, for lookups and for applying records). Readers
/// take only `state`, so a writer waiting for another process never blocks a lookup.
final class DiskMetadataStore: Sendable {
    /// Thrown by ``exclusive(create:_:)`` when the folder is gone and may not be created.
    struct NotReady: Error {}

    private struct Writer {
        var lockFD: Int32 = -1
        var lockIdentity: FileIdentity?
    }

    let paths: DiskPaths
    private let writer = Mutex(Writer())
    private let state = Mutex(DiskJournalState())

    init(folder: URL) {
        paths = DiskPaths(folder: folder)
    }

    deinit {
        writer.withLock { writer in
            if writer.lockFD >= 0 { DiskIO.closeFile(writer.lockFD) }
        }
        state.withLock { $0.close() }
    }

    // MARK: - Reading without the folder's lock

    /// The index item for `name`. A name the index lacks costs no system call unless another
    /// process changed the journal since the last look; then the journal tail is read first.
    func item(named name: String) -> DiskIndex.Item? {
        state.withLock { state in
            if let item = state.index[name] { return item }
            guard state.journalMayHaveChanged() else { return nil }
            try? state.catchUp(paths, locked: false)
            return state.index[name]
        }
    }

    /// Reads the journal tail another process may have appended, without the folder's lock.
    func refresh() {
        state.withLock { state in try? state.catchUp(paths, locked: false) }
    }

    /// Runs `body` on the index as it is now.
    func withIndex<R>(_ body: (DiskIndex) throws -> R) rethrows -> R {
        try state.withLock { try body($0.index) }
    }

    // MARK: - Changing, under the folder's lock

    /// Runs `body` holding the folder's lock, with the index caught up with the journal.
    ///
    /// With `create`, a missing cache folder (and its `.kf`) is created; failing that throws
    /// `.cacheError(.cannotCreateDirectory)`. Without it, a missing folder throws ``NotReady``.
    /// `body` may call ``append(_:)`` and ``withIndex(_:)``.
    func exclusive<R>(create: Bool, _ body: () throws -> R) throws -> R {
        try writer.withLock { writer in
            try acquire(&writer, create: create)
            defer { DiskIO.unlock(writer.lockFD) }
            try state.withLock { state in
                do {
                    try state.catchUp(paths, locked: true)
                } catch {
                    throw KingfisherError.cacheError(reason: .cacheIndexFailed(path: paths.journal, error: error))
                }
            }
            return try body()
        }
    }

    /// Opens (or reopens) `.kf/lock` and takes its `flock`, making sure the locked file is still
    /// the one at the path: a folder deleted and recreated behind our back has a new lock file.
    private func acquire(_ writer: inout Writer, create: Bool) throws {
        for _ in 0..<8 {
            if writer.lockFD < 0 {
                if create { try makeFolders() }
                let fd = open(paths.lock, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
                guard fd >= 0 else {
                    let code = errno
                    if code == ENOENT || code == ENOTDIR {
                        if create { continue }
                        throw NotReady()
                    }
                    throw KingfisherError.cacheError(reason: .cacheIndexFailed(path: paths.lock, error: DiskIO.posixError(code)))
                }
                writer.lockFD = fd
                writer.lockIdentity = FileIdentity(descriptor: fd)
            }
            do {
                try DiskIO.lockExclusive(writer.lockFD)
            } catch {
                throw KingfisherError.cacheError(reason: .cacheIndexFailed(path: paths.lock, error: error))
            }
            if let identity = writer.lockIdentity, FileIdentity(path: paths.lock) == identity { return }
            DiskIO.unlock(writer.lockFD)
            DiskIO.closeFile(writer.lockFD)
            writer.lockFD = -1
            if !create, !DiskIO.fileExists(paths.lock) { throw NotReady() }
        }
        throw KingfisherError.cacheError(reason: .cacheIndexFailed(path: paths.lock, error: DiskIO.posixError(EAGAIN)))
    }

    /// Creates the cache folder and its metadata folder.
    func makeFolders() throws {
        do {
            try FileManager.default.createDirectory(atPath: paths.metadata, withIntermediateDirectories: true)
        } catch {
            throw KingfisherError.cacheError(reason: .cannotCreateDirectory(path: paths.folder, error: error))
        }
    }

    /// Appends `records` to the journal and applies them; compacts the journal when it has grown
    /// well past the live entries. Throws only when the records are not in the journal (none of
    /// them: a partial write is cut off). Only inside ``exclusive(create:_:)``.
    func append(_ records: [DiskJournalRecord]) throws {
        try state.withLock { state in
            do {
                try state.append(records)
            } catch {
                throw KingfisherError.cacheError(reason: .cacheIndexFailed(path: paths.journal, error: error))
            }
            // The records are in: a compaction that fails (no room for the new journal) leaves
            // the old journal, which is still right, and is tried again on a later append.
            if state.needsCompaction { try? state.compact(paths) }
        }
    }

    /// Replaces the journal with an empty one and forgets every entry. Only inside ``exclusive(create:_:)``.
    func resetJournal() throws {
        try state.withLock { state in
            let temporary = paths.metadata + "/journal.tmp-\(getpid())"
            do {
                DiskIO.removeFile(temporary)
                try DiskIO.writeNewFile(atPath: temporary, data: Data(DiskJournalRecord.header))
                try DiskIO.renameFile(temporary, paths.journal)
                state.close()
                try state.catchUp(paths, locked: true)
                state.bumpGeneration()
            } catch {
                DiskIO.removeFile(temporary)
                throw KingfisherError.cacheError(reason: .cacheIndexFailed(path: paths.journal, error: error))
            }
        }
    }

    /// Forgets the index and the journal after the folder turned out to be gone.
    func forgetFolder() {
        state.withLock { $0.close() }
    }
}
