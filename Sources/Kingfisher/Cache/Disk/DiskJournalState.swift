import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a cache folder keeps its metadata.
struct DiskPaths: Sendable {
    let folder: String
    let metadata: String
    let lock: String
    let journal: String
    let generation: String

    init(folder: URL) {
        self.folder = folder.path
        metadata = folder.appendingPathComponent(DiskFileName.metadataFolder).path
        lock = metadata + "/lock"
        journal = metadata + "/journal"
        generation = metadata + "/generation"
    }

    func entry(_ name: String) -> String { folder + "/" + name }
}

/// The index and the open journal it replays, guarded by ``DiskMetadataStore``'s state mutex.
struct DiskJournalState {
    var index = DiskIndex()
    private(set) var journalFD: Int32 = -1
    private var journalIdentity: FileIdentity?
    /// The journal was opened read-only (a read-only folder): lookups work, appends do not.
    private var journalReadOnly = false
    /// Journal bytes applied to the index (the header included).
    private(set) var offset = 0
    private var generation: DiskGeneration?
    private var seenGeneration: UInt64 = 0

    /// Whether another process may have changed the journal since the last look; a memory read
    /// when the shared generation counter is mapped.
    mutating func journalMayHaveChanged() -> Bool {
        guard let generation else { return true }
        let value = generation.value
        guard value != seenGeneration else { return false }
        seenGeneration = value
        return true
    }

    /// Brings the index up to date with the journal on disk.
    ///
    /// `locked` (the caller holds the folder's lock) allows repairs: creating the journal and the
    /// generation counter, cutting off a torn or corrupt tail, resetting a foreign file. Without
    /// the lock an incomplete tail is simply left for later.
    mutating func catchUp(_ paths: DiskPaths, locked: Bool) throws {
        let onDisk = FileIdentity(path: paths.journal)
        if onDisk == nil || onDisk != journalIdentity || (locked && journalReadOnly) {
            close()
            if onDisk == nil, !locked { return }
            var fd = open(paths.journal, O_RDWR | O_APPEND | O_CLOEXEC | (locked ? O_CREAT : 0), 0o644)
            if fd < 0, !locked, errno == EROFS || errno == EACCES || errno == EPERM {
                // A read-only folder still serves what it holds.
                fd = open(paths.journal, O_RDONLY | O_CLOEXEC)
                journalReadOnly = fd >= 0
            }
            guard fd >= 0 else {
                if errno == ENOENT, !locked { return }
                throw DiskIO.posixError()
            }
            journalFD = fd
            journalIdentity = FileIdentity(descriptor: fd)
            generation = DiskGeneration(path: paths.generation, create: locked)
            seenGeneration = generation?.value ?? 0
        }
        var tail = try DiskIO.readTail(journalFD, from: offset)
        if tail.size < offset {
            // Shrunk in place (not by this storage): start over.
            index.removeAll()
            offset = 0
            tail = try DiskIO.readTail(journalFD, from: 0)
        }
        var position = 0
        if offset == 0 {
            let header = DiskJournalRecord.header
            guard tail.bytes.count >= header.count, tail.bytes.starts(with: header) else {
                if locked { try resetJournal() }
                return
            }
            position = header.count
            offset = header.count
        }
        let clean = tail.bytes.withUnsafeBytes { buffer -> Bool in
            while position < buffer.count {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[position...])
                guard case .record(let record, let length) = DiskJournalRecord.decode(rest) else { return false }
                index.apply(record, length: length)
                position += length
                offset += length
            }
            return true
        }
        if !clean, locked {
            // A writer killed mid-append (or a damaged file): cut the tail so appends stay framed.
            guard ftruncate(journalFD, off_t(offset)) == 0 else { throw DiskIO.posixError() }
        }
        if locked { markGenerationSeen() }
    }

    /// Under the folder's lock nobody else can bump the generation, so once caught up (or after
    /// our own bump) the current value is one we have seen.
    private mutating func markGenerationSeen() {
        seenGeneration = generation?.value ?? 0
    }

    /// Empties the journal in place (header only) and the index. Needs the folder's lock.
    private mutating func resetJournal() throws {
        index.removeAll()
        guard ftruncate(journalFD, 0) == 0 else { throw DiskIO.posixError() }
        try DiskJournalRecord.header.withUnsafeBytes { try DiskIO.writeAll(journalFD, $0) }
        offset = DiskJournalRecord.header.count
        generation?.bump()
        markGenerationSeen()
    }

    /// Appends `records` to the journal and applies them. Needs the folder's lock and a caught-up index.
    mutating func append(_ records: [DiskJournalRecord]) throws {
        guard !records.isEmpty else { return }
        guard journalFD >= 0 else { throw DiskIO.posixError(EBADF) }
        var bytes = [UInt8]()
        var lengths = [Int]()
        for record in records {
            let start = bytes.count
            record.encode(into: &bytes)
            lengths.append(bytes.count - start)
        }
        do {
            try bytes.withUnsafeBytes { try DiskIO.writeAll(journalFD, $0) }
        } catch {
            // A full disk can take part of the records: cut them off at once, so that nothing
            // appended later sits behind a torn record (a replay stops at the first one).
            _ = ftruncate(journalFD, off_t(offset))
            throw error
        }
        for (record, length) in zip(records, lengths) {
            index.apply(record, length: length)
        }
        offset += bytes.count
        generation?.bump()
        markGenerationSeen()
    }

    /// Whether the journal is worth rewriting: over 1 MB and over 4 times what the live entries need.
    var needsCompaction: Bool {
        offset > 1 << 20 && offset > 4 * (index.liveRecordBytes + DiskJournalRecord.header.count)
    }

    /// Rewrites the journal with one put per live entry and renames it over the old one; other
    /// processes see the new file and replay it. Needs the folder's lock.
    mutating func compact(_ paths: DiskPaths) throws {
        var bytes = DiskJournalRecord.header
        for record in index.compactedRecords() {
            record.encode(into: &bytes)
        }
        let temporary = paths.metadata + "/journal.tmp-\(getpid())"
        unlink(temporary)
        try DiskIO.writeNewFile(atPath: temporary, data: Data(bytes))
        do {
            try DiskIO.renameFile(temporary, paths.journal)
        } catch {
            unlink(temporary)
            throw error
        }
        close()
        try catchUp(paths, locked: true)
        generation?.bump()
        markGenerationSeen()
    }

    /// Tells other processes the journal changed.
    mutating func bumpGeneration() {
        generation?.bump()
        markGenerationSeen()
    }

    /// Forgets the journal and the index (the files were removed, or the journal replaced).
    mutating func close() {
        if journalFD >= 0 { DiskIO.closeFile(journalFD) }
        journalFD = -1
        journalIdentity = nil
        journalReadOnly = false
        generation?.unmap()
        generation = nil
        index.removeAll()
        offset = 0
    }
}
