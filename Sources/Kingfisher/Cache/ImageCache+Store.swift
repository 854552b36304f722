import Foundation
import Synchronization

extension ImageCache {
    /// Stores `image` in memory and, when `toDisk`, its serialized bytes on disk, under the key and
    /// processor identifier the options give.
    ///
    /// The memory store is done when this returns; the memory entry remembers the options' decoding
    /// choices (scale, first frame only), and a later lookup with other choices misses it so the
    /// image is made again from the original bytes. The disk bytes come from the options'
    /// `cacheSerializer` (given `original`, the data the image was decoded from, when known);
    /// `completionHandler` runs once the disk write is done, on `options.callbackQueue`. An image
    /// loaded for an image target that a newer request superseded goes to disk only, never memory.
    public func store(
        _ image: KFCrossPlatformImage,
        original: Data? = nil,
        forKey key: String,
        options: KingfisherParsedOptionsInfo,
        toDisk: Bool = true,
        completionHandler: (@Sendable (CacheStoreResult) -> Void)? = nil
    ) {
        store(image, original: original, forKey: key, options: options, toDisk: toDisk,
              writingOnCallingThread: false, completionHandler: completionHandler)
    }

    /// Stores as the public form does; with `writingOnCallingThread`, the serializing and the disk
    /// write run on the calling thread (one hand-off less) unless work is queued on the I/O queue,
    /// which must keep its order. For callers already on a worker thread, such as the manager's
    /// processing.
    func store(
        _ image: KFCrossPlatformImage,
        original: Data?,
        forKey key: String,
        options: KingfisherParsedOptionsInfo,
        toDisk: Bool,
        writingOnCallingThread: Bool,
        completionHandler: (@Sendable (CacheStoreResult) -> Void)?
    ) {
        let computedKey = key.computedKey(with: options.processor.identifier)
        if options.isCurrentSourceTask {
            var tagged = image
            tagged.creatingTag = options.imageCreatingTag
            memoryStorage.store(value: tagged, forKey: computedKey, expiration: options.memoryCacheExpiration)
        }

        guard toDisk, !options.cacheMemoryOnly else {
            if let completionHandler {
                let result = CacheStoreResult(memoryCacheResult: .success(()), diskCacheResult: .success(()))
                options.callbackQueue.execute { completionHandler(result) }
            }
            return
        }

        let write: @Sendable () -> Void = {
            let diskResult: Result<Void, KingfisherError>
            if let data = options.cacheSerializer.data(with: image, original: original) {
                diskResult = self.syncStoreToDisk(
                    data, key: key, computedKey: computedKey, forcedExtension: options.forcedExtension,
                    expiration: options.diskCacheExpiration, writeOptions: options.diskStoreWriteOptions
                )
            } else {
                diskResult = .failure(.cacheError(reason: .cannotSerializeImage(
                    image: image, original: original, serializer: options.cacheSerializer
                )))
            }
            if let completionHandler {
                let result = CacheStoreResult(memoryCacheResult: .success(()), diskCacheResult: diskResult)
                options.callbackQueue.execute { completionHandler(result) }
            }
        }
        if writingOnCallingThread, queuedIO.load(ordering: .acquiring) == 0 {
            write()
        } else {
            enqueueDiskWrite(for: computedKey, write)
        }
    }

    /// Stores `image` in memory and, when `toDisk`, on disk, with the options spelled out.
    public func store(
        _ image: KFCrossPlatformImage,
        original: Data? = nil,
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        cacheSerializer serializer: any CacheSerializer = DefaultCacheSerializer.default,
        toDisk: Bool = true,
        callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable (CacheStoreResult) -> Void)? = nil
    ) {
        var options = KingfisherParsedOptionsInfo(nil)
        options.processor = IdentifiedProcessor(identifier: identifier)
        options.forcedExtension = forcedExtension
        options.cacheSerializer = serializer
        options.callbackQueue = callbackQueue
        store(image, original: original, forKey: key, options: options, toDisk: toDisk,
              completionHandler: completionHandler)
    }

    /// Writes `data` to the disk level as it is, under `key@processorIdentifier`.
    ///
    /// Nothing goes to memory. `completionHandler` runs after the write, on `callbackQueue`.
    public func storeToDisk(
        _ data: Data,
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        expiration: StorageExpiration? = nil,
        callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable (CacheStoreResult) -> Void)? = nil
    ) {
        let computedKey = key.computedKey(with: identifier)
        enqueueDiskWrite(for: computedKey) {
            let diskResult = self.syncStoreToDisk(
                data, key: key, computedKey: computedKey, forcedExtension: forcedExtension,
                expiration: expiration, writeOptions: []
            )
            if let completionHandler {
                let result = CacheStoreResult(memoryCacheResult: .success(()), diskCacheResult: diskResult)
                callbackQueue.execute { completionHandler(result) }
            }
        }
    }

    func syncStoreToDisk(
        _ data: Data, key: String, computedKey: String, forcedExtension: String?,
        expiration: StorageExpiration?, writeOptions: Data.WritingOptions
    ) -> Result<Void, KingfisherError> {
        do {
            try diskStorage.store(
                value: data, forKey: computedKey, expiration: expiration,
                forcedExtension: forcedExtension, extensionKey: key
            )
            return .success(())
        } catch let error as KingfisherError {
            return .failure(error)
        } catch {
            let url = diskStorage.cacheFileURL(forKey: computedKey, forcedExtension: forcedExtension, extensionKey: key)
            return .failure(.cacheError(reason: .cannotCreateCacheFile(
                fileURL: url, key: computedKey, data: data, error: error
            )))
        }
    }

    /// Removes the image stored under `key@processorIdentifier` from the levels asked.
    ///
    /// The memory removal is done when this returns; `completionHandler` runs after the disk
    /// removal, on `callbackQueue`. A disk failure is ignored: the entry is gone or unreadable.
    public func removeImage(
        forKey key: String,
        processorIdentifier identifier: String = "",
        forcedExtension: String? = nil,
        fromMemory: Bool = true,
        fromDisk: Bool = true,
        callbackQueue: CallbackQueue = .untouch,
        completionHandler: (@Sendable () -> Void)? = nil
    ) {
        let computedKey = key.computedKey(with: identifier)
        if fromMemory {
            memoryStorage.remove(forKey: computedKey)
        }
        guard fromDisk else {
            if let completionHandler { callbackQueue.execute(completionHandler) }
            return
        }
        enqueueDiskWrite(for: computedKey) {
            try? self.diskStorage.remove(forKey: computedKey, forcedExtension: forcedExtension, extensionKey: key)
            if let completionHandler { callbackQueue.execute(completionHandler) }
        }
    }
}

/// A processor that stands for an identifier only, for the cache methods that take one.
///
/// It never runs; processing with it returns the input image unchanged.
struct IdentifiedProcessor: ImageProcessor {
    let identifier: String

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultImageProcessor.default.process(item: item, options: options)
    }
}
