import Foundation

extension ImageCache {
    /// Looks `key` up in memory, then on disk, under the processor identifier of the options.
    ///
    /// A memory hit calls `completionHandler` before this returns when `callbackQueue` allows it
    /// (`.untouch`, or `.mainCurrentOrAsync` on the main thread). A disk hit is decoded with the
    /// options' `cacheSerializer`, put in memory, and reported as `.disk`. Expired entries, and
    /// disk bytes the serializer cannot decode, are `.none`. With `fromMemoryCacheOrRefresh`, the
    /// disk is not read.
    public func retrieveImage(
        forKey key: String,
        options: KingfisherParsedOptionsInfo,
        callbackQueue: CallbackQueue? = nil,
        completionHandler: (@Sendable (Result<ImageCacheResult, KingfisherError>) -> Void)?
    ) {
        guard let completionHandler else { return }
        let queue = callbackQueue ?? options.callbackQueue
        if let image = retrieveImageInMemoryCache(forKey: key, options: options) {
            queue.execute { completionHandler(.success(.memory(image))) }
            return
        }
        if options.fromMemoryCacheOrRefresh {
            queue.execute { completionHandler(.success(.none)) }
            return
        }
        retrieveImageInDiskCache(forKey: key, options: options, callbackQueue: queue) { result in
            switch result {
            case .success(let image?):
                var memoryOptions = options
                memoryOptions.cacheMemoryOnly = true
                self.store(image, forKey: key, options: memoryOptions, toDisk: false)
                completionHandler(.success(.disk(image)))
            case .success(nil):
                completionHandler(.success(.none))
            case .failure(let error):
                completionHandler(.failure(error))
            }
        }
    }

    /// Looks `key` up in memory, then on disk, with options given as a list.
    public func retrieveImage(
        forKey key: String,
        options: KingfisherOptionsInfo? = nil,
        callbackQueue: CallbackQueue? = nil,
        completionHandler: (@Sendable (Result<ImageCacheResult, KingfisherError>) -> Void)?
    ) {
        retrieveImage(
            forKey: key, options: KingfisherParsedOptionsInfo(options),
            callbackQueue: callbackQueue, completionHandler: completionHandler
        )
    }

    /// The image in memory for `key` and the options' processor, or `nil`; never touches the disk.
    ///
    /// A hit extends the entry's expiry as `memoryCacheAccessExtendingExpiration` says, and keeps
    /// the scale the image was stored with, whatever `scaleFactor` asks (as in Kingfisher). An
    /// entry stored with other frame choices (`onlyLoadFirstFrame`, `preloadAllFrames`) is still a
    /// hit, made again for these options: an animation that kept its encoded bytes is run through
    /// the options' processor again (on the calling thread), any other image gives only its first
    /// frame when that is asked for. The entry in memory is left as it was.
    public func retrieveImageInMemoryCache(forKey key: String, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let computedKey = key.computedKey(with: options.processor.identifier)
        guard let image = memoryStorage.value(forKey: computedKey, extendingExpiration: options.memoryCacheAccessExtendingExpiration)
        else { return nil }
        if let tag = image.creatingTag, tag.ignoringScale != options.imageCreatingTag.ignoringScale {
            return Self.remade(image, options: options)
        }
        return image
    }

    /// `image`, made with other frame choices, as `options` would have made it, at the scale
    /// `image` has.
    static func remade(_ image: KFCrossPlatformImage, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage {
        var tag = options.imageCreatingTag
        tag.scale = image.scale
        if let data = image.animatedImageData,
           var made = options.processor.process(item: .data(data), options: options) {
            if made.scale != image.scale { made = made.withScale(image.scale) }
            made.creatingTag = tag
            return made
        }
        var made = image
        if options.onlyLoadFirstFrame {
            made = image.firstFrameOnly()
            made.frameSource = nil
            made.lazyLoopCount = nil
        }
        made.creatingTag = tag
        return made
    }

    /// The image in memory for `key`, with options given as a list.
    public func retrieveImageInMemoryCache(forKey key: String, options: KingfisherOptionsInfo? = nil) -> KFCrossPlatformImage? {
        retrieveImageInMemoryCache(forKey: key, options: KingfisherParsedOptionsInfo(options))
    }

    /// Reads and decodes the disk entry for `key` and the options' processor; `nil` on a miss.
    ///
    /// Runs on the cache's read queue (behind any pending write of the same key), or on the
    /// calling thread with `loadDiskFileSynchronously`. Does not put the image in memory. A read
    /// error of the file is `.cacheError(.cannotLoadDataFromDisk)`; bytes the serializer cannot
    /// decode are a miss.
    public func retrieveImageInDiskCache(
        forKey key: String,
        options: KingfisherParsedOptionsInfo,
        callbackQueue: CallbackQueue = .untouch,
        completionHandler: @escaping @Sendable (Result<KFCrossPlatformImage?, KingfisherError>) -> Void
    ) {
        let computedKey = key.computedKey(with: options.processor.identifier)
        let work: @Sendable () -> Void = {
            let result = self.syncRetrieveFromDisk(key: key, computedKey: computedKey, options: options)
            callbackQueue.execute { completionHandler(result) }
        }
        if options.loadDiskFileSynchronously {
            work()
        } else {
            enqueueDiskRead(for: computedKey, work)
        }
    }

    /// Reads the disk entry for `key`, with options given as a list.
    public func retrieveImageInDiskCache(
        forKey key: String,
        options: KingfisherOptionsInfo? = nil,
        callbackQueue: CallbackQueue = .untouch,
        completionHandler: @escaping @Sendable (Result<KFCrossPlatformImage?, KingfisherError>) -> Void
    ) {
        retrieveImageInDiskCache(
            forKey: key, options: KingfisherParsedOptionsInfo(options),
            callbackQueue: callbackQueue, completionHandler: completionHandler
        )
    }

    /// True when a disk read of `key` under the options' processor would surely miss: the storage
    /// is ready, no write of the key is queued and the index has no entry for it. Costs no system
    /// call in the common case, so the manager answers such a miss without a trip to the read queue.
    func diskSurelyMisses(forKey key: String, options: KingfisherParsedOptionsInfo) -> Bool {
        let computedKey = key.computedKey(with: options.processor.identifier)
        guard diskStorage.isReady, pendingWrites.withLock({ $0[computedKey] == nil }) else { return false }
        return !diskStorage.hasIndexEntry(forKey: computedKey, forcedExtension: options.forcedExtension, extensionKey: key)
    }

    /// The disk entry decoded by the options' serializer. A request whose image target moved on
    /// (checked before the read and before decoding) gets `nil` and costs no decoding.
    func syncRetrieveFromDisk(key: String, computedKey: String, options: KingfisherParsedOptionsInfo) -> Result<KFCrossPlatformImage?, KingfisherError> {
        guard options.isCurrentSourceTask else { return .success(nil) }
        let data: Data?
        do {
            data = try diskStorage.value(
                forKey: computedKey, forcedExtension: options.forcedExtension, extensionKey: key,
                extendingExpiration: options.diskCacheAccessExtendingExpiration
            )
        } catch let error as KingfisherError {
            return .failure(error)
        } catch {
            let url = diskStorage.cacheFileURL(forKey: computedKey, forcedExtension: options.forcedExtension, extensionKey: key)
            return .failure(.cacheError(reason: .cannotLoadDataFromDisk(url: url, error: error)))
        }
        guard let data, options.isCurrentSourceTask else { return .success(nil) }
        return .success(options.cacheSerializer.image(with: data, options: options))
    }

    /// Where `key@processorIdentifier` is cached now, found off the calling thread: the disk check
    /// runs on the cache's read queue (behind a pending write of the key), so an async caller on the
    /// main actor never waits for the file system.
    public func imageCachedTypeAsync(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil
    ) async -> CacheType {
        await withCheckedContinuation { continuation in
            imageCachedTypeAsync(forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension) {
                continuation.resume(returning: $0)
            }
        }
    }

    /// Where `key@processorIdentifier` is cached now, given to `completionHandler` on
    /// `callbackQueue`: the disk check runs on the cache's read queue (behind a pending write of
    /// the key), never on the calling thread.
    public func imageCachedTypeAsync(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        callbackQueue: CallbackQueue = .untouch,
        completionHandler: @escaping @Sendable (CacheType) -> Void
    ) {
        let computedKey = key.computedKey(with: identifier)
        if memoryStorage.isCached(forKey: computedKey) {
            callbackQueue.execute { completionHandler(.memory) }
            return
        }
        enqueueDiskRead(for: computedKey) {
            let onDisk = self.diskStorage.isCached(forKey: computedKey, forcedExtension: forcedExtension, extensionKey: key)
            callbackQueue.execute { completionHandler(onDisk ? .disk : .none) }
        }
    }

    /// Where `key@processorIdentifier` is cached now: `.memory`, `.disk` or `.none`.
    ///
    /// Never extends an expiry. A disk answer checks the file is still there.
    public func imageCachedType(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil
    ) -> CacheType {
        let computedKey = key.computedKey(with: identifier)
        if memoryStorage.isCached(forKey: computedKey) { return .memory }
        if diskStorage.isCached(forKey: computedKey, forcedExtension: forcedExtension, extensionKey: key) { return .disk }
        return .none
    }

    /// True when `key@processorIdentifier` is in memory or on disk and not expired.
    public func isCached(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil
    ) -> Bool {
        imageCachedType(forKey: key, processorIdentifier: identifier, forcedExtension: forcedExtension).cached
    }

    /// The disk file name of `key@processorIdentifier`: the SHA-256 hex of the computed key,
    /// with the storage's extension rules applied.
    public func hash(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil
    ) -> String {
        diskStorage.cacheFileName(forKey: key.computedKey(with: identifier), forcedExtension: forcedExtension, extensionKey: key)
    }

    /// The file of `key@processorIdentifier` when it is on disk and unexpired, else `nil`.
    public func cacheFileURLIfOnDisk(
        forKey key: String,
        processorIdentifier identifier: String = DefaultImageProcessor.default.identifier,
        forcedExtension: String? = nil
    ) -> URL? {
        let computedKey = key.computedKey(with: identifier)
        guard diskStorage.isCached(forKey: computedKey, forcedExtension: forcedExtension, extensionKey: key) else { return nil }
        return diskStorage.cacheFileURL(forKey: computedKey, forcedExtension: forcedExtension, extensionKey: key)
    }

    /// The summed cost of the images in memory (``MemoryStorage/Backend/totalCacheCost()``).
    public var memoryStorageCacheCost: Int {
        memoryStorage.totalCacheCost()
    }

    /// The path of the disk file that holds, or would hold, `key@processorIdentifier`.
    public func cachePath(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil
    ) -> String {
        diskStorage.cacheFileURL(forKey: key.computedKey(with: identifier), forcedExtension: forcedExtension, extensionKey: key).path
    }
}
