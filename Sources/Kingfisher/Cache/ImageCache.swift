import Foundation
import KingfisherSynchronization

extension Notification.Name {
    /// Posted by ``ImageCache/cleanExpiredDiskCache(completion:)`` when it removed files.
    ///
    /// The notification's `object` is the ``ImageCache``; `userInfo[KingfisherDiskCacheCleanedHashKey]`
    /// is a `[String]` of the removed files' names (the hashes of their keys).
    public static let KingfisherDidCleanDiskCache = Notification.Name("com.onevcat.Kingfisher.KingfisherDidCleanDiskCache")
}

/// The `userInfo` key of ``Foundation/NSNotification/Name/KingfisherDidCleanDiskCache`` that holds the removed hashes.
public let KingfisherDiskCacheCleanedHashKey = "com.onevcat.Kingfisher.cleanedHash"

/// The two-level image cache: decoded images in memory, serialized images on disk.
///
/// An image is stored under `key@processorIdentifier` (the bare key for the default processor),
/// so one source processed two ways makes two entries. The memory level answers synchronously;
/// disk reads and writes run on the cache's I/O queues unless `.loadDiskFileSynchronously` is
/// given. Completion handlers run on the ``CallbackQueue`` passed in or set in the options, by
/// default `.untouch` (the thread that finished the work), because on Linux the main queue runs
/// only in programs that service it.
///
/// Caches are safe to share between threads, and disk folders between processes (see
/// ``DiskStorage``).
public final class ImageCache: Sendable {
    /// The cache of the process: named `default`, in the default disk location.
    public static let `default` = ImageCache(name: "default")

    /// The memory level, holding decoded images.
    public let memoryStorage: MemoryStorage.Backend<KFCrossPlatformImage>
    /// The disk level, holding serialized images.
    public let diskStorage: DiskStorage.Backend<Data>

    /// Serial: every disk write and removal, in the order they were asked for.
    let ioQueue: DispatchQueue
    /// Concurrent: disk reads of keys with no write pending.
    let readQueue: DispatchQueue
    /// Computed keys with a disk write queued on `ioQueue`, and how many.
    let pendingWrites = Mutex<[String: Int]>([:])
    /// Jobs queued on `ioQueue` and not yet finished: while there are none, a store may write on
    /// the calling thread without overtaking an earlier write, removal or clean-up.
    let queuedIO = Atomic<Int>(0)
    /// Names this cache in the keys of the manager's shared work; unique in the process.
    let workKey: String
    private static let cacheCount = Atomic<Int>(0)

    /// A cache over the two storages given.
    public init(memoryStorage: MemoryStorage.Backend<KFCrossPlatformImage>, diskStorage: DiskStorage.Backend<Data>) {
        self.memoryStorage = memoryStorage
        self.diskStorage = diskStorage
        workKey = String(Self.cacheCount.wrappingAdd(1, ordering: .relaxed).newValue)
        let label = "com.onevcat.Kingfisher.ImageCache.\(diskStorage.config.name).\(UUID().uuidString)"
        ioQueue = DispatchQueue(label: label + ".io")
        readQueue = DispatchQueue(label: label + ".read", attributes: .concurrent)
    }

    /// A cache named `name` in the default folder (`$XDG_CACHE_HOME`, else `~/.cache`).
    ///
    /// Never throws: when the folder cannot be created now, disk reads are misses and each disk
    /// write tries again, failing with `.cacheError(.cannotCreateDirectory)` while it still cannot.
    /// The memory limit is ``MemoryStorage/Config/defaultTotalCostLimit``.
    public convenience init(name: String) {
        let config = DiskStorage.Config(name: Self.folderSafeName(name), sizeLimit: 0)
        self.init(
            memoryStorage: MemoryStorage.Backend(config: .init(totalCostLimit: MemoryStorage.Config.defaultTotalCostLimit)),
            diskStorage: DiskStorage.Backend(noThrowConfig: config, creatingDirectory: true)
        )
    }

    /// Makes a cache folder's URL from its parent folder and its folder name
    /// (`com.onevcat.Kingfisher.ImageCache.<name>`); see ``DiskStorage/Config/cachePathBlock``.
    public typealias DiskCachePathClosure = @Sendable (URL, String) -> URL

    /// A cache named `name` whose folder is created inside `cacheDirectoryURL` (the default
    /// folder when `nil`), at the URL `diskCachePathClosure` makes from that parent and the
    /// folder name when one is given.
    ///
    /// - Throws: `.cacheError(.cannotCreateDirectory)` when the name is empty or holds a `/`, or
    ///   when the folder cannot be created.
    public convenience init(name: String, cacheDirectoryURL: URL?, diskCachePathClosure: DiskCachePathClosure? = nil) throws {
        guard !name.isEmpty, !name.contains("/"), !name.contains("\0") else {
            throw KingfisherError.cacheError(reason: .cannotCreateDirectory(
                path: cacheDirectoryURL?.path ?? name,
                error: InvalidCacheName(name: name)
            ))
        }
        var config = DiskStorage.Config(name: name, sizeLimit: 0, directory: cacheDirectoryURL)
        if let diskCachePathClosure { config.cachePathBlock = diskCachePathClosure }
        self.init(
            memoryStorage: MemoryStorage.Backend(config: .init(totalCostLimit: MemoryStorage.Config.defaultTotalCostLimit)),
            diskStorage: try DiskStorage.Backend(config: config)
        )
    }

    /// Why a cache name was refused.
    struct InvalidCacheName: Error, CustomStringConvertible {
        let name: String
        var description: String {
            name.isEmpty ? "a cache needs a non-empty name" : "the cache name \"\(name)\" holds a character not allowed in a folder name"
        }
    }

    /// `name` with the characters a folder name cannot hold escaped; an empty name becomes `_`.
    static func folderSafeName(_ name: String) -> String {
        if name.isEmpty { return "_" }
        return name
            .replacingOccurrences(of: "%", with: "%25")
            .replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "\0", with: "%00")
    }

    /// Runs a disk write for `computedKey` on the serial I/O queue, so that reads of that key
    /// issued meanwhile wait for it.
    func enqueueDiskWrite(for computedKey: String, _ work: @escaping @Sendable () -> Void) {
        pendingWrites.withLock { $0[computedKey, default: 0] += 1 }
        enqueueIO {
            work()
            self.pendingWrites.withLock { pending in
                let remaining = (pending[computedKey] ?? 1) - 1
                pending[computedKey] = remaining > 0 ? remaining : nil
            }
        }
    }

    /// Runs `work` on the serial I/O queue, counted in ``queuedIO`` until it is done.
    func enqueueIO(_ work: @escaping @Sendable () -> Void) {
        queuedIO.wrappingAdd(1, ordering: .acquiringAndReleasing)
        ioQueue.async {
            work()
            self.queuedIO.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
    }

    /// Runs a disk read for `computedKey`: behind any write of the same key still queued,
    /// otherwise concurrently with other reads.
    func enqueueDiskRead(for computedKey: String, _ work: @escaping @Sendable () -> Void) {
        let mustWait = pendingWrites.withLock { $0[computedKey] != nil }
        (mustWait ? ioQueue : readQueue).async(execute: work)
    }
}

extension String {
    /// The cache key for `identifier`: the key itself for the default processor's empty
    /// identifier, else `key@identifier`.
    func computedKey(with identifier: String) -> String {
        identifier.isEmpty ? self : "\(self)@\(identifier)"
    }
}
