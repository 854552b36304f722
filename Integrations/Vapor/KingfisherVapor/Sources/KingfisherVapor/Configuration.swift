import Foundation
import Kingfisher
import Vapor

extension Application.Kingfisher {
    /// How the application's manager, cache and downloader are made.
    ///
    /// The defaults suit a server: a 128 MiB memory cache, a 1 GiB disk cache kept 7 days in
    /// `$XDG_CACHE_HOME` (else `~/.cache`), 15 s without progress before a download fails and
    /// 20 MB at most per source. In a container, point ``cacheDirectory`` at a volume.
    public struct Configuration: Sendable {
        /// The cache's name: its folder is `com.onevcat.Kingfisher.ImageCache.<name>` in
        /// ``cacheDirectory``.
        public var name: String
        /// The folder the disk cache's folder is made in; `nil` is the default cache folder.
        public var cacheDirectory: URL?
        /// The most decoded pixel memory the memory cache keeps, in bytes.
        public var memoryCostLimit: Int
        /// The most bytes the disk cache keeps; 0 is no limit.
        public var diskSizeLimit: UInt
        /// How long a file stays in the disk cache.
        public var diskExpiration: StorageExpiration
        /// Seconds without progress from the origin before a download fails (504).
        public var downloadTimeout: TimeInterval
        /// The largest source accepted, in bytes (413 above it).
        public var maximumResponseSize: Int64
        /// The most requests in flight to one origin host.
        public var maxConnectionsPerHost: Int

        /// The server defaults, each of which can be changed.
        public init(
            name: String = "vapor",
            cacheDirectory: URL? = nil,
            memoryCostLimit: Int = 128 * 1024 * 1024,
            diskSizeLimit: UInt = 1024 * 1024 * 1024,
            diskExpiration: StorageExpiration = .days(7),
            downloadTimeout: TimeInterval = 15,
            maximumResponseSize: Int64 = 20_000_000,
            maxConnectionsPerHost: Int = 8
        ) {
            self.name = name
            self.cacheDirectory = cacheDirectory
            self.memoryCostLimit = memoryCostLimit
            self.diskSizeLimit = diskSizeLimit
            self.diskExpiration = diskExpiration
            self.downloadTimeout = downloadTimeout
            self.maximumResponseSize = maximumResponseSize
            self.maxConnectionsPerHost = maxConnectionsPerHost
        }

        /// A manager as configured; a cache folder that cannot be made leaves a memory-only
        /// cache for now (disk reads miss, each write tries again) and logs why.
        func makeManager(logger: Logger) -> KingfisherManager {
            let cache: ImageCache
            do {
                cache = try ImageCache(name: name, cacheDirectoryURL: cacheDirectory)
            } catch {
                logger.error("Kingfisher's disk cache cannot be used: \(error)")
                cache = ImageCache(name: name)
            }
            cache.memoryStorage.config.totalCostLimit = memoryCostLimit
            cache.diskStorage.config.sizeLimit = diskSizeLimit
            cache.diskStorage.config.expiration = diskExpiration
            let downloader = ImageDownloader(name: name, maxConnectionsPerHost: maxConnectionsPerHost)
            downloader.downloadTimeout = downloadTimeout
            downloader.maximumResponseSize = maximumResponseSize
            return KingfisherManager(downloader: downloader, cache: cache)
        }
    }
}
