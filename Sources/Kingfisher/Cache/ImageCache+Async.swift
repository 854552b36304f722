import Foundation

extension ImageCache {
    /// Stores `image` in memory and, when `toDisk`, on disk; returns after the disk write.
    ///
    /// - Throws: the disk failure (the memory store has happened regardless).
    public func store(
        _ image: KFCrossPlatformImage,
        original: Data? = nil,
        forKey key: String,
        options: KingfisherParsedOptionsInfo,
        toDisk: Bool = true
    ) async throws {
        var options = options
        options.callbackQueue = .untouch
        let result = await withCheckedContinuation { continuation in
            store(image, original: original, forKey: key, options: options, toDisk: toDisk) {
                continuation.resume(returning: $0)
            }
        }
        try result.diskCacheResult.get()
    }

    /// Stores `image` with the options spelled out; returns after the disk write.
    public func store(
        _ image: KFCrossPlatformImage,
        original: Data? = nil,
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        cacheSerializer serializer: any CacheSerializer = DefaultCacheSerializer.default,
        toDisk: Bool = true
    ) async throws {
        var options = KingfisherParsedOptionsInfo(nil)
        options.processor = IdentifiedProcessor(identifier: identifier)
        options.forcedExtension = forcedExtension
        options.cacheSerializer = serializer
        try await store(image, original: original, forKey: key, options: options, toDisk: toDisk)
    }

    /// Writes `data` to disk as it is; returns after the write.
    public func storeToDisk(
        _ data: Data,
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        expiration: StorageExpiration? = nil
    ) async throws {
        let result = await withCheckedContinuation { continuation in
            storeToDisk(data, forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension,
                        expiration: expiration) {
                continuation.resume(returning: $0)
            }
        }
        try result.diskCacheResult.get()
    }

    /// Looks `key` up in memory, then on disk.
    public func retrieveImage(forKey key: String, options: KingfisherParsedOptionsInfo) async throws -> ImageCacheResult {
        try await withCheckedThrowingContinuation { continuation in
            retrieveImage(forKey: key, options: options, callbackQueue: .untouch) {
                continuation.resume(with: $0)
            }
        }
    }

    /// Looks `key` up in memory, then on disk, with options given as a list.
    public func retrieveImage(forKey key: String, options: KingfisherOptionsInfo? = nil) async throws -> ImageCacheResult {
        try await retrieveImage(forKey: key, options: KingfisherParsedOptionsInfo(options))
    }

    /// Reads and decodes the disk entry for `key`; `nil` on a miss.
    public func retrieveImageInDiskCache(forKey key: String, options: KingfisherOptionsInfo? = nil) async throws -> KFCrossPlatformImage? {
        try await withCheckedThrowingContinuation { continuation in
            retrieveImageInDiskCache(forKey: key, options: options, callbackQueue: .untouch) {
                continuation.resume(with: $0)
            }
        }
    }

    /// Removes `key@processorIdentifier` from the levels asked; returns after the disk removal.
    public func removeImage(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        fromMemory: Bool = true,
        fromDisk: Bool = true
    ) async {
        await withCheckedContinuation { continuation in
            removeImage(forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension,
                        fromMemory: fromMemory, fromDisk: fromDisk) {
                continuation.resume()
            }
        }
    }

    /// Empties both levels.
    public func clearCache() async {
        await withCheckedContinuation { continuation in clearCache { continuation.resume() } }
    }

    /// Deletes every disk entry.
    public func clearDiskCache() async {
        await withCheckedContinuation { continuation in clearDiskCache { continuation.resume() } }
    }

    /// Removes expired entries from both levels and trims the disk.
    public func cleanExpiredCache() async {
        await withCheckedContinuation { continuation in cleanExpiredCache { continuation.resume() } }
    }

    /// Removes expired disk entries and trims the disk, posting the clean notification.
    public func cleanExpiredDiskCache() async {
        await withCheckedContinuation { continuation in cleanExpiredDiskCache { continuation.resume() } }
    }

    /// The bytes the disk level holds.
    public var diskStorageSize: UInt {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                calculateDiskStorageSize { continuation.resume(with: $0) }
            }
        }
    }
}
