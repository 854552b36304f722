import Foundation

extension KingfisherManager {
    /// Applies a fetched response's caching headers to how its image is stored
    /// (``KingfisherOptionsInfoItem/revalidateExpiredCache``): `no-store` keeps it off the disk,
    /// `max-age` becomes its disk expiration, and its validators are kept next to the entry.
    func keepValidators(_ validators: ResponseValidators, forKey key: String, options: inout KingfisherParsedOptionsInfo) {
        if validators.noStore {
            options.cacheMemoryOnly = true
            return
        }
        if let maxAge = validators.maxAge {
            // A zero max-age still stores the entry, expired at once: the next read revalidates.
            options.diskCacheExpiration = .seconds(max(maxAge, 0.001))
        }
        guard !options.cacheMemoryOnly, validators.canRevalidate else { return }
        targetCache(for: options).storeValidators(validators, forComputedKey: key.computedKey(with: options.processor.identifier))
    }

    /// Starts a revalidation when `source` is a download whose disk entry has expired and has
    /// validators; returns false (and does nothing) otherwise.
    func revalidateIfExpired(_ source: Source, cache: ImageCache, _ retrieval: ManagedRetrieval) -> Bool {
        guard case .network(let resource) = source else { return false }
        let options = retrieval.options
        let computedKey = source.cacheKey.computedKey(with: options.processor.identifier)
        guard cache.diskStorage.hasExpiredEntry(forKey: computedKey, forcedExtension: options.forcedExtension),
              let validators = cache.validators(forComputedKey: computedKey), validators.canRevalidate
        else { return false }
        revalidate(resource, source: source, cache: cache, computedKey: computedKey, validators: validators, retrieval)
        return true
    }

    /// Asks the server whether the expired entry is still current: a `304` refreshes the entry's
    /// expiry and answers from the disk (no body is transferred); a new image replaces it.
    private func revalidate(
        _ resource: any Resource, source: Source, cache: ImageCache, computedKey: String,
        validators: ResponseValidators, _ retrieval: ManagedRetrieval
    ) {
        var options = retrieval.options
        options.callbackQueue = .untouch
        options.requestModifier = ConditionalRequestModifier(wrapped: options.requestModifier, validators: validators)
        let stage = retrieval.beginStage()
        let task = downloader(for: options).downloadImage(
            with: resource.downloadURL, options: options, source: source, progressBlock: retrieval.progress
        ) { [self] result in
            guard retrieval.endStage(stage) else { return }
            retrieval.link(nil)
            switch result {
            case .success(let loaded):
                cacheAndSucceed(
                    loaded.image, original: loaded.originalData, storeOriginal: true, source: source, retrieval,
                    validators: loaded.validators)
            case .failure(.responseError(reason: .notModified(_, let fresh))):
                let merged = validators.merged(with: fresh)
                let expiration = merged.maxAge.map { StorageExpiration.seconds(max($0, 0.001)) } ?? retrieval.options.diskCacheExpiration
                cache.diskStorage.refreshExpiration(
                    forKey: computedKey, forcedExtension: retrieval.options.forcedExtension, expiration: expiration)
                cache.storeValidators(merged, forComputedKey: computedKey)
                answerFromDisk(source, cache: cache, retrieval)
            case .failure(let error):
                fail(source, error, retrieval)
            }
        }
        retrieval.adopt(task, for: stage)
    }

    /// Reads the refreshed entry; if it is gone meanwhile, fetches as usual.
    private func answerFromDisk(_ source: Source, cache: ImageCache, _ retrieval: ManagedRetrieval) {
        let options = retrieval.options
        let key = source.cacheKey
        readDisk(cache: cache, key: key, options: options, retrieval) { [self] image in
            guard let image else {
                fetchUnlessCacheOnly(source, retrieval)
                return
            }
            var memoryOptions = options
            memoryOptions.cacheMemoryOnly = true
            cache.store(image, forKey: key, options: memoryOptions, toDisk: false)
            succeed(image, cacheType: .disk, source: source, data: nil, retrieval)
        }
    }
}
