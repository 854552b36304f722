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
        download(resource, source: source, retrieval,
                 revalidating: ExpiredEntry(cache: cache, computedKey: computedKey, validators: validators))
        return true
    }

    /// After a `304` for `entry`: merges the fresh validators, refreshes the entry's expiry and
    /// answers from the disk (no body was transferred).
    func refresh(_ entry: ExpiredEntry, with fresh: ResponseValidators, source: Source, _ retrieval: ManagedRetrieval) {
        let merged = entry.validators.merged(with: fresh)
        let expiration = merged.maxAge.map { StorageExpiration.seconds(max($0, 0.001)) } ?? retrieval.options.diskCacheExpiration
        entry.cache.diskStorage.refreshExpiration(
            forKey: entry.computedKey, forcedExtension: retrieval.options.forcedExtension, expiration: expiration)
        entry.cache.storeValidators(merged, forComputedKey: entry.computedKey)
        answerFromDisk(source, cache: entry.cache, retrieval)
    }

    /// Reads the refreshed entry; if it is gone meanwhile, fetches as usual.
    private func answerFromDisk(_ source: Source, cache: ImageCache, _ retrieval: ManagedRetrieval) {
        let options = retrieval.options
        let key = source.cacheKey
        readDisk(source, cache: cache, key: key, options: options, retrieval) { [self] image in
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

/// An expired disk entry being revalidated: its cache, its key and the validators it was stored with.
struct ExpiredEntry: Sendable {
    let cache: ImageCache
    let computedKey: String
    let validators: ResponseValidators
}
