import Foundation
import Kingfisher

/// The cheat sheet's cache and serializer snippets. `cache` is an `ImageCache` (`ImageCache.default`
/// is the one the shared manager uses), `image` a decoded image, `url` an image's URL.
struct CheatSheetCacheSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    func print(_ items: Any...) { log.append(items) }

    func ownCache() throws {
        // snippet: cheat-cache-own
        let cache = try ImageCache(name: "avatars", cacheDirectoryURL: URL(fileURLWithPath: "/var/cache/myapp"))
        // files in /var/cache/myapp/com.onevcat.Kingfisher.ImageCache.avatars
        // end snippet
        _ = cache
    }

    func storeAndRetrieve(cache: ImageCache, image: KFCrossPlatformImage) async throws {
        // snippet: cheat-cache-store-retrieve
        try await cache.store(image, forKey: "https://example.com/a.png")
        let result = try await cache.retrieveImage(forKey: "https://example.com/a.png")  // .memory(image)
        cache.clearMemoryCache()
        print(result.image != nil, cache.imageCachedType(forKey: "https://example.com/a.png"))  // true disk
        // end snippet
    }

    func isCached(cache: ImageCache, url: URL) {
        // snippet: cheat-cache-check
        let processor = DownsamplingImageProcessor(size: CGSize(width: 64, height: 64))
        let cached = cache.isCached(forKey: url.cacheKey, processorIdentifier: processor.identifier)
        let whereFrom = cache.imageCachedType(forKey: url.cacheKey, processorIdentifier: processor.identifier)
        print(cached, whereFrom)                               // e.g. true disk
        print(cache.cachePath(forKey: url.cacheKey, processorIdentifier: processor.identifier))
        // end snippet
    }

    func remove(cache: ImageCache, url: URL) async throws {
        // snippet: cheat-cache-remove
        await cache.removeImage(forKey: url.cacheKey)          // memory and disk
        cache.clearMemoryCache()
        await cache.clearDiskCache()                           // returns once the disk is empty
        await cache.cleanExpiredDiskCache()                    // expired entries, then the size limit
        cache.backgroundCleanExpiredDiskCache()                // the same, without waiting
        print(try await cache.diskStorageSize, "bytes on disk")
        // end snippet
    }

    func limits(cache: ImageCache) {
        // snippet: cheat-cache-limits
        cache.memoryStorage.config.totalCostLimit = 64 * 1024 * 1024    // bytes of decoded pixels
        cache.memoryStorage.config.countLimit = 200
        cache.memoryStorage.config.expiration = .seconds(600)
        cache.diskStorage.config.sizeLimit = 500 * 1024 * 1024           // 0: no limit
        cache.diskStorage.config.expiration = .days(30)
        // end snippet
    }

    func options(url: URL) async throws {
        // snippet: cheat-cache-options
        // Ask the network again, and keep the original beside the processed image:
        _ = try await KingfisherManager.shared.retrieveImage(
            with: url, options: [.forceRefresh, .cacheOriginalImage,
                                 .processor(BlackWhiteProcessor())])
        // Only what is cached (an error otherwise), or keep this one for an hour in memory only:
        _ = try await KingfisherManager.shared.retrieveImage(with: url, options: [.onlyFromCache])
        _ = try await KingfisherManager.shared.retrieveImage(
            with: url, options: [.cacheMemoryOnly, .memoryCacheExpiration(.seconds(3600))])
        // end snippet
    }

    func serializers(url: URL) async throws {
        // snippet: cheat-serializer
        // Round corners are transparent: store the processed image as PNG, not as the JPEG it came as.
        _ = try await KingfisherManager.shared.retrieveImage(
            with: url, options: [.processor(RoundCornerImageProcessor(cornerRadius: 20)),
                                 .cacheSerializer(FormatIndicatedCacheSerializer.png)])
        // Or AVIF at quality 0.8 and speed 8, or the downloaded bytes as they came:
        _ = FormatIndicatedCacheSerializer.avif(compressionQuality: 0.8, speed: 8)
        var keepBytes = DefaultCacheSerializer()
        keepBytes.preferCacheOriginalData = true
        _ = try await KingfisherManager.shared.retrieveImage(with: url, options: [.cacheSerializer(keepBytes)])
        // end snippet
    }

    func revalidation(url: URL) async throws {
        // snippet: cheat-revalidate
        // Follow the origin's Cache-Control and ETag: an expired entry is asked for with
        // If-None-Match, and a 304 renews it without a download.
        let result = try await KingfisherManager.shared.retrieveImage(with: url, options: [.revalidateExpiredCache])
        // end snippet
        _ = result
    }
}
