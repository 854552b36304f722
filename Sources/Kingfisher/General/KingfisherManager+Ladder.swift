import Foundation

extension KingfisherManager {
    /// Runs the ladder for `source`: memory (when `checkMemory`), disk, a cached original,
    /// then a fetch. Failures move on to the next alternative source.
    func attempt(_ source: Source, _ retrieval: ManagedRetrieval, checkMemory: Bool) {
        let source = Self.normalized(source)
        let options = retrieval.options
        let target = targetCache(for: options)
        let key = source.cacheKey
        guard retrieval.isActive, !stopIfSuperseded(source, retrieval) else { return }
        if options.forceRefresh {
            fetchUnlessCacheOnly(source, retrieval)
            return
        }
        if checkMemory, let image = target.retrieveImageInMemoryCache(forKey: key, options: options) {
            succeed(image, cacheType: .memory, source: source, data: nil, retrieval)
            return
        }
        if options.fromMemoryCacheOrRefresh {
            fetchUnlessCacheOnly(source, retrieval)
            return
        }
        if options.revalidateExpiredCache, !options.onlyFromCache, revalidateIfExpired(source, cache: target, retrieval) {
            return
        }
        readDisk(source, cache: target, key: key, options: options, retrieval) { [self] image in
            if let image {
                var memoryOptions = options
                memoryOptions.cacheMemoryOnly = true
                target.store(image, forKey: key, options: memoryOptions, toDisk: false)
                succeed(image, cacheType: .disk, source: source, data: nil, retrieval)
            } else if options.processor.identifier.isEmpty {
                fetchUnlessCacheOnly(source, retrieval)
            } else {
                processCachedOriginal(source, retrieval)
            }
        }
    }

    /// A network source for a file URL becomes a local-file provider.
    static func normalized(_ source: Source) -> Source {
        if case .network(let resource) = source, resource.downloadURL.isFileURL {
            return resource.convertToSource()
        }
        return source
    }

    /// Reads `key` (with the options' processor) from the disk of `cache`, sharing the read with
    /// concurrent callers. An unreadable entry is a miss: fetching again repairs it.
    ///
    /// A request its image target superseded while the read ran gets no image: the read checks
    /// the target before reading and again before decoding, and the call ends with
    /// `.imageSettingError(.notCurrentSourceTask)` carrying no result. A caller that shared a read
    /// skipped for another caller's sake reads again for itself.
    func readDisk(
        _ source: Source, cache: ImageCache, key: String, options: KingfisherParsedOptionsInfo, _ retrieval: ManagedRetrieval,
        then: @escaping @Sendable (KFCrossPlatformImage?) -> Void
    ) {
        var untouched = options
        untouched.callbackQueue = .untouch
        let readOptions = untouched
        let computedKey = key.computedKey(with: options.processor.identifier)
        let shareKey = Self.shareKey(cache, options: options, computedKey: computedKey)
        let stage = retrieval.beginStage()
        let subscription = diskReads.join(key: shareKey, callback: { [self] result in
            guard retrieval.endStage(stage), !stopIfSuperseded(source, retrieval) else { return }
            switch result {
            case .success(.read(let image)): then(image)
            case .failure: then(nil)
            case .success(.skipped): readDisk(source, cache: cache, key: key, options: options, retrieval, then: then)
            }
        }, start: { finish in
            if cache.diskSurelyMisses(forKey: key, options: readOptions) {
                finish(.success(.read(nil)))
            } else {
                cache.retrieveImageInDiskCache(forKey: key, options: readOptions, callbackQueue: .untouch) { result in
                    let image = (try? result.get()) ?? nil
                    // A miss may be the read skipped because the caller that started it was superseded.
                    finish(.success(image == nil && !readOptions.isCurrentSourceTask ? .skipped : .read(image)))
                }
            }
            return nil
        })
        if !retrieval.setCancel(subscription.cancel, for: stage) { subscription.cancel() }
    }

    /// The key of shared work on `computedKey` in `caches` with the options' decoding choices,
    /// made of strings the caches keep (interpolating an `ObjectIdentifier` goes through the
    /// runtime's dynamic casts, a cost paid on every retrieval).
    static func shareKey(_ caches: ImageCache..., options: KingfisherParsedOptionsInfo, computedKey: String) -> String {
        var key = ""
        for cache in caches {
            key += cache.workKey
            key += "|"
        }
        return key + decodingKey(options) + "|" + computedKey
    }

    /// The options that change how bytes decode, for keys of shared work.
    static func decodingKey(_ options: KingfisherParsedOptionsInfo) -> String {
        "\(options.scaleFactor)|\(options.onlyLoadFirstFrame)|\(options.imageCreatingOptions.preloadAllFrames)|\(options.forcedExtension ?? "")"
    }

    /// Builds the processed image from an original in the original cache (memory or disk),
    /// without network, and stores it in the target cache; falls back to a fetch on a miss.
    func processCachedOriginal(_ source: Source, _ retrieval: ManagedRetrieval) {
        guard !stopIfSuperseded(source, retrieval) else { return }
        let options = retrieval.options
        let target = targetCache(for: options)
        let originalCache = originalCache(for: options)
        let key = source.cacheKey
        var originalOptions = options
        originalOptions.processor = DefaultImageProcessor.default
        originalOptions.callbackQueue = .untouch
        let shareKey = Self.shareKey(
            target, originalCache, options: options, computedKey: key.computedKey(with: options.processor.identifier))
        let stage = retrieval.beginStage()
        let subscription = originals.join(key: shareKey, callback: { [self] result in
            guard retrieval.endStage(stage) else { return }
            switch result {
            case .success(let image?):
                // An original found in memory is processed on the caller's thread.
                cacheAndSucceed(image, original: nil, storeOriginal: false, source: source, retrieval, onWorkerThread: false)
            case .success(nil):
                fetchUnlessCacheOnly(source, retrieval)
            case .failure(let error):
                fail(source, error, retrieval)
            }
        }, start: { [self] finish in
            let processOriginal: @Sendable (KFCrossPlatformImage?) -> Void = { [self] original in
                // Reading the original takes a while: a request superseded meanwhile processes
                // nothing (a caller sharing this work then fetches for itself).
                guard let original, options.isCurrentSourceTask else {
                    finish(.success(nil))
                    return
                }
                process(.image(original), options: options) { finish($0.map(Optional.some)) }
            }
            if let image = originalCache.retrieveImageInMemoryCache(forKey: key, options: originalOptions) {
                processOriginal(image)
            } else if originalCache.diskSurelyMisses(forKey: key, options: originalOptions) {
                processOriginal(nil)
            } else {
                originalCache.retrieveImageInDiskCache(forKey: key, options: originalOptions) { result in
                    processOriginal((try? result.get()) ?? nil)
                }
            }
            return nil
        })
        if !retrieval.setCancel(subscription.cancel, for: stage) { subscription.cancel() }
    }

    /// Runs the options' processor on `item`, on the options' `processingQueue` when one is set.
    func process(
        _ item: ImageProcessItem, options: KingfisherParsedOptionsInfo,
        completion: @escaping @Sendable (Result<KFCrossPlatformImage, KingfisherError>) -> Void
    ) {
        let work: @Sendable () -> Void = {
            completion(options.processor.processReportingReason(item: item, options: options))
        }
        if let queue = options.processingQueue {
            queue.execute(work)
        } else {
            work()
        }
    }

    /// Fetches `source`, or fails with `.cacheError(.imageNotExisting)` under `onlyFromCache`.
    func fetchUnlessCacheOnly(_ source: Source, _ retrieval: ManagedRetrieval) {
        guard !retrieval.options.onlyFromCache else {
            fail(source, .cacheError(reason: .imageNotExisting(key: source.cacheKey)), retrieval)
            return
        }
        fetch(source, retrieval)
    }

    /// Ends the retrieval with `error`, or moves on to the next alternative source.
    ///
    /// Cancellation, and a request its image target superseded, never move on. When the options
    /// list alternative sources and all failed,
    /// the error is `.imageSettingError(.alternativeSourcesExhausted)` with each failure.
    func fail(_ source: Source, _ error: KingfisherError, _ retrieval: ManagedRetrieval) {
        guard retrieval.isActive else { return }
        guard !error.isTaskCancelled, retrieval.options.isCurrentSourceTask else {
            retrieval.finish(.failure(error))
            return
        }
        let (next, failures) = retrieval.recordFailure(source: source, error: error)
        if let next {
            retrieval.downloadTaskUpdated?(retrieval.task)
            attempt(next, retrieval, checkMemory: true)
        } else if let alternatives = retrieval.options.alternativeSources, !alternatives.isEmpty {
            retrieval.finish(.failure(.imageSettingError(reason: .alternativeSourcesExhausted(failures))))
        } else {
            retrieval.finish(.failure(error))
        }
    }

    /// Delivers `image` after the options' image modifier. Its data are the fetched bytes, or for a
    /// cache hit (`data` nil) what the cache serializer makes of the image.
    func succeed(
        _ image: KFCrossPlatformImage, cacheType: CacheType, source: Source, data: Data?, _ retrieval: ManagedRetrieval,
        metrics: NetworkMetrics? = nil
    ) {
        let bytes: @Sendable () -> Data? = if let data { { data } } else { Self.serializedData(of: image, options: retrieval.options) }
        let result = RetrieveImageResult(
            image: modified(image, options: retrieval.options), cacheType: cacheType, source: source,
            originalSource: retrieval.originalSource, data: bytes, metrics: metrics)
        retrieval.finish(.success(result))
    }

    /// Stores a fetched or newly processed image in the target cache (and the original bytes
    /// in the original cache when asked), then delivers it; with `waitForCache`, only after
    /// the disk writes are done. `onWorkerThread`: the caller runs on one of the pipeline's own
    /// threads (a loading queue, the downloader, a disk read), never the caller of `retrieveImage`.
    func cacheAndSucceed(
        _ image: KFCrossPlatformImage, original: Data?, storeOriginal: Bool, source: Source, _ retrieval: ManagedRetrieval,
        validators: ResponseValidators? = nil, metrics: NetworkMetrics? = nil, onWorkerThread: Bool
    ) {
        var options = retrieval.options
        if options.revalidateExpiredCache, let validators {
            keepValidators(validators, forKey: source.cacheKey, options: &options)
        }
        var storeOptions = options
        storeOptions.callbackQueue = .untouch
        let key = source.cacheKey
        let writesOriginal = storeOriginal && !options.cacheMemoryOnly && options.cacheOriginalImage
            && !options.processor.identifier.isEmpty && original != nil
        let deliver: @Sendable () -> Void = { [self] in
            succeed(image, cacheType: .none, source: source, data: original, retrieval, metrics: metrics)
        }
        let waiter: (@Sendable (CacheStoreResult) -> Void)?
        if options.waitForCache {
            let countdown = Countdown(writesOriginal ? 2 : 1, then: deliver)
            waiter = { _ in countdown.tick() }
        } else {
            waiter = nil
        }
        // On a worker thread the disk write runs here, with no hand-off; elsewhere (maybe the
        // main thread) it waits for the I/O queue.
        let onWorker = onWorkerThread && !(options.processingQueue?.mayRunOnMain ?? false)
        targetCache(for: options).store(
            image, original: original, forKey: key, options: storeOptions,
            toDisk: !options.cacheMemoryOnly, writingOnCallingThread: onWorker, completionHandler: waiter)
        if writesOriginal, let original {
            originalCache(for: options).storeToDisk(
                original, forKey: key, forcedExtension: options.forcedExtension,
                expiration: options.diskCacheExpiration, completionHandler: waiter)
        }
        if waiter == nil { deliver() }
    }
}

/// What a shared disk read found.
enum DiskReadOutcome: Sendable {
    /// The decoded entry, or `nil` on a miss.
    case read(KFCrossPlatformImage?)
    /// Nothing was read: the caller that started the read was superseded by then.
    case skipped
}
