import Foundation

/// The disk half of the image cache: files in one folder, with metadata Linux can trust.
///
/// Linux ignores a creation date set on a file and rarely updates access times, so the storage
/// keeps each entry's size, last access and expiry itself, in an append-only journal inside the
/// cache folder (`<cache>/.kf/journal`). Why a journal rather than an index file rewritten on
/// every change or extended attributes:
/// - appending one small record per store, read or removal is one `write` and never rewrites
///   what other processes wrote, so two processes can share a folder by taking turns on a file
///   lock (`.kf/lock`) around each append;
/// - every record is framed with its length and a checksum and carries absolute values, so a
///   process killed mid-append leaves a torn tail that the next writer detects and cuts off, and
///   replaying the journal (on start, or the tail another process added) is idempotent;
/// - the in-memory index (file name → size, last access, expiry) is the replay of the journal,
///   so a new ``Backend`` on the same folder sees the same metadata, and a key the index does
///   not know is answered without touching the disk.
///
/// Other processes' changes are noticed through a shared 8-byte generation counter
/// (`.kf/generation`, mapped into memory) that every writer bumps after appending: a miss in the
/// index compares it with the last value seen — a memory read, no system call — and reads the
/// journal tail only when it moved. Unlike an inotify watch, this is synchronous: once a store
/// returns in one process, a lookup in any other process sees it. The journal is compacted
/// (rewritten and renamed over) when it grows past 1 MB and 4 times what the live entries need.
///
/// Each read appends one touch record under the lock (measured at a few microseconds next to
/// reading a file; not batched, so recency and extended expiry are never lost to a crash).
/// ``Backend/removeExpiredValues()`` also adopts files no record names (renamed in by a process
/// killed before recording them: they are complete, since only finished temporary files are
/// renamed) and deletes temporary files whose writer is dead or that are over an hour old.
///
/// Values are written to a temporary file in the cache folder and renamed into place, so no
/// reader ever sees half a file, and a file's size is checked against the index when read. Files
/// deleted behind the cache's back are misses; a deleted folder is recreated on the next store.
public enum DiskStorage {
    /// How a disk storage names, places, limits and expires its files.
    public struct Config: Sendable {
        /// The cache's name; the folder is `com.onevcat.Kingfisher.ImageCache.<name>`.
        public var name: String
        /// The most bytes the files may take; over it, a store trims least-recently-used entries
        /// to half of it. 0 means no limit.
        public var sizeLimit: UInt
        /// How long an entry lives when its store does not say otherwise.
        public var expiration: StorageExpiration = .days(7)
        /// An extension appended to every file name (without the dot), or nil.
        public var pathExtension: String? = nil
        /// Whether file names are the SHA-256 hex digest of the key (true) or the key made safe.
        public var usesHashedFileName = true
        /// Whether a hashed file name keeps the path extension of the key read as a URL.
        public var autoExtAfterHashedFileName = false
        /// The parent of the cache folder; nil is `$XDG_CACHE_HOME` when set and absolute, else
        /// `~/.cache`.
        public var directory: URL? = nil
        /// The source of "now" for expiry and recency; tests inject one to avoid waiting.
        public var clock: CacheClock = .system
        /// Makes the cache folder's URL from the parent folder (``directory`` or the default) and
        /// the folder name `com.onevcat.Kingfisher.ImageCache.<name>`; by default it appends the
        /// name to the parent.
        ///
        /// Read once, when a ``DiskStorage/Backend`` is made; the backend's own copy of the
        /// configuration then holds `nil` here, as Kingfisher's does.
        public var cachePathBlock: (@Sendable (_ directory: URL, _ cacheName: String) -> URL)! = { directory, cacheName in
            directory.appendingPathComponent(cacheName, isDirectory: true)
        }
        /// Reads file attributes for the storage: the size and age of files a sweep finds, and
        /// the modification date set on each new file. Reading and writing the files themselves
        /// goes through the system calls the journal needs, not through it.
        public let fileManager: FileManager

        /// A configuration for the cache `name`, limited to `sizeLimit` bytes (0: no limit).
        ///
        /// `directory` is the parent folder of the cache folder; nil picks the user's cache folder.
        public init(name: String, sizeLimit: UInt, fileManager: FileManager = .default, directory: URL? = nil) {
            self.name = name
            self.sizeLimit = sizeLimit
            self.fileManager = fileManager
            self.directory = directory
        }

        /// The folder name inside the parent folder.
        var cacheFolderName: String { "com.onevcat.Kingfisher.ImageCache.\(name)" }

        /// The cache folder this configuration names.
        var cacheFolderURL: URL {
            let parent = directory ?? Self.defaultParentDirectory()
            guard let cachePathBlock else { return parent.appendingPathComponent(cacheFolderName, isDirectory: true) }
            return cachePathBlock(parent, cacheFolderName)
        }

        static func defaultParentDirectory() -> URL {
            let environment = ProcessInfo.processInfo.environment
            if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
                return URL(fileURLWithPath: xdg, isDirectory: true)
            }
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        }
    }

    /// One live entry of a disk storage, as its index knows it.
    public struct Entry: Sendable, Hashable {
        /// The key the entry was stored with, when the index knows it (nil for adopted files).
        public let key: String?
        /// The file holding the value.
        public let fileURL: URL
        /// The file's size in bytes.
        public let size: Int
        /// When the entry was last stored or read, by the storage's clock.
        public let lastAccess: Date
        /// When the entry expires; `Date.distantFuture` for entries that never do.
        public let expiration: Date
    }
}
