import Foundation

// The clearing methods keep Kingfisher's `completion: … = nil`, so `cache.clearDiskCache()` in
// synchronous code compiles as it does there. Inside an async function, `await cache.clearDiskCache()`
// is the async form (ImageCache+Async.swift); in a `main.swift`'s top-level code Swift resolves the
// call as in synchronous code and picks this one, which returns at once (the compiler warns "no
// 'async' operations occur within 'await'"), as with Kingfisher on Apple platforms.

extension ImageCache {
    /// Empties both levels; `completion` runs after the disk is cleared, on the I/O queue.
    ///
    /// `await clearCache()` is the form that returns once both are empty.
    public func clearCache(completion: (@Sendable () -> Void)? = nil) {
        clearMemoryCache()
        clearDiskCache(completion: completion)
    }

    /// Empties the memory level at once.
    public func clearMemoryCache() {
        memoryStorage.removeAll()
    }

    /// Deletes every disk entry; `completion` runs afterwards, on the I/O queue.
    ///
    /// Entries another process writes meanwhile may survive; the folder itself stays.
    /// `await clearDiskCache()` is the form that returns once the disk is cleared.
    public func clearDiskCache(completion: (@Sendable () -> Void)? = nil) {
        enqueueIO {
            try? self.diskStorage.removeAll()
            completion?()
        }
    }

    /// Removes expired entries from both levels, then trims the disk to its size limit;
    /// `completion` runs afterwards, on the I/O queue (`await cleanExpiredCache()` waits instead).
    public func cleanExpiredCache(completion: (@Sendable () -> Void)? = nil) {
        cleanExpiredMemoryCache()
        cleanExpiredDiskCache(completion: completion)
    }

    /// Removes expired entries from memory at once.
    public func cleanExpiredMemoryCache() {
        memoryStorage.removeExpired()
    }

    /// Removes expired disk entries, then least-recently-used ones while over the size limit.
    ///
    /// When anything was removed, posts ``Foundation/NSNotification/Name/KingfisherDidCleanDiskCache``
    /// with the removed file names under ``KingfisherDiskCacheCleanedHashKey``. `completion` runs
    /// afterwards, on the I/O queue (`await cleanExpiredDiskCache()` waits instead).
    public func cleanExpiredDiskCache(completion: (@Sendable () -> Void)? = nil) {
        enqueueIO {
            let expired = (try? self.diskStorage.removeExpiredValues()) ?? []
            let oversized = (try? self.diskStorage.removeSizeExceededValues()) ?? []
            let hashes = (expired + oversized).map(\.lastPathComponent)
            if !hashes.isEmpty {
                NotificationCenter.default.post(
                    name: .KingfisherDidCleanDiskCache,
                    object: self,
                    userInfo: [KingfisherDiskCacheCleanedHashKey: hashes]
                )
            }
            completion?()
        }
    }

    /// Removes expired disk entries, then trims the disk to its size limit, off the caller's thread.
    ///
    /// The call returns at once; the work runs on the cache's I/O queue, as
    /// ``cleanExpiredDiskCache(completion:)`` does. Linux has no app lifecycle that suspends a
    /// process, so no background time is requested: call it when your program goes idle. Observe
    /// ``Foundation/NSNotification/Name/KingfisherDidCleanDiskCache`` to learn what was removed.
    public func backgroundCleanExpiredDiskCache() {
        cleanExpiredDiskCache(completion: nil)
    }

    /// Reports the bytes the disk level holds, on `callbackQueue`.
    public func calculateDiskStorageSize(
        callbackQueue: CallbackQueue = .untouch,
        completion handler: @escaping @Sendable (Result<UInt, KingfisherError>) -> Void
    ) {
        enqueueIO {
            let result: Result<UInt, KingfisherError>
            do {
                result = .success(try self.diskStorage.totalSize())
            } catch let error as KingfisherError {
                result = .failure(error)
            } catch {
                result = .failure(.cacheError(reason: .invalidURLResource(
                    error: error, key: "", url: self.diskStorage.directoryURL
                )))
            }
            callbackQueue.execute { handler(result) }
        }
    }
}
