import Foundation
import KingfisherSynchronization

extension DiskStorage {
    /// A disk storage for values of type `T`, in one cache folder, safe to share between threads
    /// and between processes.
    ///
    /// See ``DiskStorage`` for how the metadata is kept. Every time decision reads
    /// `config.clock`. Reads take no lock; changes (stores, removals, the bookkeeping of reads)
    /// take the folder's lock for a moment.
    public final class Backend<T: DataTransformable>: Sendable {
        private let settings: Mutex<Config>
        let metadata: DiskMetadataStore
        private let temporaryCounter = Atomic<Int>(0)
        /// False while the folder could not be created: set by the non-throwing initialiser when
        /// creating it failed, true again once a store creates it.
        private let ready = Atomic<Bool>(true)

        /// The configuration; changing it affects later calls (the folder stays where it is).
        public var config: Config {
            get { settings.withLock { $0 } }
            set { settings.withLock { $0 = newValue } }
        }

        /// The cache folder: `<parent>/com.onevcat.Kingfisher.ImageCache.<name>`.
        public let directoryURL: URL

        /// A storage in the folder `config` names, creating the folder when needed.
        ///
        /// Throws `.cacheError(.cannotCreateDirectory)` when the folder cannot be created, and
        /// `.cacheError(.cacheIndexFailed)` when its journal cannot be opened.
        public convenience init(config: Config) throws {
            self.init(settings: config)
            try metadata.exclusive(create: true) {}
        }

        /// A storage that never throws: when `creatingDirectory` is set and the folder cannot be
        /// created, the storage is not ready: reads throw `.cacheError(.diskStorageIsNotReady)` so
        /// the caller learns the cache is broken, and each store tries to create the folder again
        /// (throwing while it still cannot; once it can, the storage is ready).
        ///
        /// With `creatingDirectory` false, a missing folder is left alone until the first store,
        /// and reads are misses until then.
        public convenience init(noThrowConfig config: Config, creatingDirectory: Bool) {
            self.init(settings: config)
            do {
                try metadata.exclusive(create: creatingDirectory) {}
            } catch KingfisherError.cacheError(reason: .cannotCreateDirectory) {
                if creatingDirectory { ready.store(false, ordering: .releasing) }
            } catch {
                // The folder exists but its lock or journal cannot be written (a read-only
                // folder): reads still serve what it holds; stores throw.
            }
        }

        /// Whether the folder is usable: false after the non-throwing initialiser failed to create
        /// it, until a store succeeds.
        public var isReady: Bool { ready.load(ordering: .acquiring) }

        /// Throws `.cacheError(.diskStorageIsNotReady)` while the folder could not be created.
        private func throwIfNotReady() throws {
            guard isReady else {
                throw KingfisherError.cacheError(reason: .diskStorageIsNotReady(cacheURL: directoryURL))
            }
        }

        private init(settings config: Config) {
            directoryURL = config.cacheFolderURL
            var kept = config
            kept.cachePathBlock = nil
            settings = Mutex(kept)
            metadata = DiskMetadataStore(folder: directoryURL)
        }

        // MARK: - Names

        /// The file name `key` is stored under (see ``DiskStorage/Config`` for the rules).
        public func cacheFileName(forKey key: String, forcedExtension: String? = nil) -> String {
            cacheFileName(forKey: key, forcedExtension: forcedExtension, extensionKey: key)
        }

        /// The file name of `key`, whose automatic extension (`autoExtAfterHashedFileName`) comes
        /// from `extensionKey`: the image cache passes the key before its `@processorIdentifier`.
        func cacheFileName(forKey key: String, forcedExtension: String?, extensionKey: String) -> String {
            DiskFileName.name(forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey, config: config)
        }

        /// The file `key` is stored in, whether or not it is cached.
        public func cacheFileURL(forKey key: String, forcedExtension: String? = nil) -> URL {
            cacheFileURL(forKey: key, forcedExtension: forcedExtension, extensionKey: key)
        }

        /// The file of `key`, with its automatic extension taken from `extensionKey`.
        func cacheFileURL(forKey key: String, forcedExtension: String?, extensionKey: String) -> URL {
            directoryURL.appendingPathComponent(
                cacheFileName(forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey),
                isDirectory: false)
        }

        // MARK: - Storing

        /// Stores `value` for `key`, replacing what was there, atomically.
        ///
        /// The entry expires per `expiration` (else `config.expiration`), counted from now by the
        /// clock; an already expired expiration stores nothing. When the folder goes over
        /// `sizeLimit`, least-recently-used entries are removed down to half of it. `writeOptions`
        /// is accepted for Kingfisher's signature; writes are always atomic. The file's modification
        /// date is the time of the store. Throws `.cannotConvertToData`, `.cannotCreateDirectory`,
        /// `.cannotCreateCacheFile`, `.cannotSetCacheFileAttribute` or `.cacheIndexFailed` (as `.cacheError`); after a throw (a full disk, a read-only folder)
        /// the key is a miss, or still holds a complete earlier value, and no file is left behind.
        public func store(value: T, forKey key: String, expiration: StorageExpiration? = nil,
                          writeOptions: Data.WritingOptions = [], forcedExtension: String? = nil) throws {
            try store(value: value, forKey: key, expiration: expiration, forcedExtension: forcedExtension, extensionKey: key)
        }

        /// Stores `value` for `key`, with the file's automatic extension taken from `extensionKey`.
        func store(value: T, forKey key: String, expiration: StorageExpiration?, forcedExtension: String?,
                   extensionKey: String) throws {
            let config = self.config
            let expiration = expiration ?? config.expiration
            guard !expiration.isExpired else { return }
            let data: Data
            do {
                data = try value.toData()
            } catch {
                throw KingfisherError.cacheError(reason: .cannotConvertToData(object: value, error: error))
            }
            let name = DiskFileName.name(
                forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey, config: config)
            let fileURL = directoryURL.appendingPathComponent(name, isDirectory: false)
            let temporary = try writeTemporaryFile(data, key: key, fileURL: fileURL)
            do {
                try stampModificationDate(temporary, finalPath: fileURL.path, date: config.clock.now(), config: config)
                try metadata.exclusive(create: true) {
                    do {
                        try DiskIO.renameFile(temporary, fileURL.path)
                    } catch {
                        throw KingfisherError.cacheError(
                            reason: .cannotCreateCacheFile(fileURL: fileURL, key: key, data: data, error: error))
                    }
                    let now = config.clock.now()
                    do {
                        try metadata.append([.put(
                            name: name, key: key, size: data.count, lastAccess: now.timeIntervalSince1970,
                            expiry: expiration.estimatedExpirationSince(now).timeIntervalSince1970,
                            expiration: expiration)])
                    } catch {
                        // Not recorded (a full disk): a file the index does not know would take
                        // space no limit counts and come back at the next sweep, so it goes.
                        DiskIO.removeFile(fileURL.path)
                        throw error
                    }
                    if config.sizeLimit > 0 {
                        _ = try trimLocked(toFit: config.sizeLimit)
                    }
                }
                ready.store(true, ordering: .releasing)
            } catch {
                DiskIO.removeFile(temporary)
                throw error
            }
        }

        /// Sets the new file's modification date to `date`, the time of the store by the storage's
        /// clock, so that tools which age files by it see when the entry was stored. Throws
        /// `.cacheError(.cannotSetCacheFileAttribute)` naming the file's final path.
        private func stampModificationDate(_ path: String, finalPath: String, date: Date, config: Config) throws {
            let attributes: [FileAttributeKey: any Sendable] = [.modificationDate: date]
            do {
                try config.fileManager.setAttributes(attributes, ofItemAtPath: path)
            } catch {
                throw KingfisherError.cacheError(
                    reason: .cannotSetCacheFileAttribute(filePath: finalPath, attributes: attributes, error: error))
            }
        }

        /// Writes `data` to a new temporary file in the cache folder, creating the folder if it is gone.
        private func writeTemporaryFile(_ data: Data, key: String, fileURL: URL) throws -> String {
            let count = temporaryCounter.wrappingAdd(1, ordering: .relaxed).newValue
            let path = metadata.paths.folder + "/" + DiskFileName.temporaryPrefix + "\(getpid())-\(count)"
            for attempt in 0..<3 {
                do {
                    try DiskIO.writeNewFile(atPath: path, data: data)
                    return path
                } catch let error as POSIXError where attempt < 2 && (error.code == .ENOENT || error.code == .ENOTDIR) {
                    try metadata.makeFolders()
                } catch let error as POSIXError where attempt < 2 && error.code == .EEXIST {
                    // Left by a killed process that had our pid.
                    DiskIO.removeFile(path)
                } catch {
                    throw KingfisherError.cacheError(
                        reason: .cannotCreateCacheFile(fileURL: fileURL, key: key, data: data, error: error))
                }
            }
            throw KingfisherError.cacheError(reason: .cannotCreateCacheFile(
                fileURL: fileURL, key: key, data: data, error: DiskIO.posixError(EIO)))
        }

        // MARK: - Reading

        /// The value for `key`, or nil when it is not cached, expired, or its file is gone.
        ///
        /// A hit records the access and extends the expiry per `extendingExpiration`
        /// (`.cacheTime` restarts the expiration the entry was stored with). An expired entry is
        /// removed. Throws `.cacheError(.cannotLoadDataFromDisk)` when the file cannot be read or
        /// its bytes do not make a `T`.
        public func value(forKey key: String, forcedExtension: String? = nil,
                          extendingExpiration: ExpirationExtending = .cacheTime) throws -> T? {
            try value(forKey: key, forcedExtension: forcedExtension, extensionKey: key, extendingExpiration: extendingExpiration)
        }

        /// The value for `key`, whose file's automatic extension comes from `extensionKey`.
        func value(forKey key: String, forcedExtension: String?, extensionKey: String,
                   extendingExpiration: ExpirationExtending) throws -> T? {
            let config = self.config
            try throwIfNotReady()
            let name = DiskFileName.name(
                forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey, config: config)
            guard let item = metadata.item(named: name) else { return nil }
            let now = config.clock.now()
            if item.isExpired(at: now.timeIntervalSince1970) {
                removeIfExpired(name, at: now)
                return nil
            }
            let fileURL = directoryURL.appendingPathComponent(name, isDirectory: false)
            guard let data = try readEntry(name, item: item, fileURL: fileURL) else { return nil }
            touch(name, at: now, extending: extendingExpiration)
            do {
                return try T.fromData(data)
            } catch {
                throw KingfisherError.cacheError(reason: .cannotLoadDataFromDisk(url: fileURL, error: error))
            }
        }

        /// Whether `key` has a live entry whose file exists. Never extends the expiry.
        public func isCached(forKey key: String, forcedExtension: String? = nil) -> Bool {
            isCached(forKey: key, forcedExtension: forcedExtension, extensionKey: key)
        }

        /// Whether `key` has an entry whose file exists and that is still unexpired at
        /// `referenceDate` (a date ahead of the clock asks whether it will still be cached then).
        /// Never extends the expiry.
        public func isCached(forKey key: String, referenceDate: Date, forcedExtension: String? = nil) -> Bool {
            isCached(forKey: key, forcedExtension: forcedExtension, extensionKey: key, referenceDate: referenceDate)
        }

        /// Whether `key` has a live entry at `referenceDate` (the clock's now when nil), its
        /// file's automatic extension taken from `extensionKey`.
        func isCached(forKey key: String, forcedExtension: String?, extensionKey: String, referenceDate: Date? = nil) -> Bool {
            let config = self.config
            let name = DiskFileName.name(
                forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey, config: config)
            let date = referenceDate ?? config.clock.now()
            guard let item = metadata.item(named: name),
                  !item.isExpired(at: date.timeIntervalSince1970) else { return false }
            return DiskIO.fileExists(metadata.paths.entry(name))
        }

        /// Whether the index (caught up with other processes' changes) has an entry for `key`,
        /// live or expired; no system call unless another process changed the journal.
        func hasIndexEntry(forKey key: String, forcedExtension: String?, extensionKey: String) -> Bool {
            let name = DiskFileName.name(
                forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey, config: config)
            return metadata.item(named: name) != nil
        }

        /// The bytes of entry `name`, checked against the index; nil (and the index repaired) when
        /// the file is gone or is not what the index says.
        private func readEntry(_ name: String, item: DiskIndex.Item, fileURL: URL) throws -> Data? {
            do {
                if case .data(let data) = try DiskIO.readFile(atPath: fileURL.path, expectedSize: item.size) {
                    return data
                }
                // Replaced or removed by someone else: look again holding the lock, where the
                // files and the journal agree.
                return try metadata.exclusive(create: false) {
                    guard let current = metadata.withIndex({ $0[name] }) else { return nil }
                    switch try DiskIO.readFile(atPath: fileURL.path, expectedSize: current.size) {
                    case .data(let data):
                        return data
                    case .missing:
                        try metadata.append([.remove(name: name)])
                    case .sizeMismatch:
                        DiskIO.removeFile(fileURL.path)
                        try metadata.append([.remove(name: name)])
                    }
                    return nil
                }
            } catch is DiskMetadataStore.NotReady {
                metadata.forgetFolder()
                return nil
            } catch let error as KingfisherError {
                throw error
            } catch {
                throw KingfisherError.cacheError(reason: .cannotLoadDataFromDisk(url: fileURL, error: error))
            }
        }

        /// Records a read of `name` at `now`, extending its expiry per `extending`. Best effort.
        private func touch(_ name: String, at now: Date, extending: ExpirationExtending) {
            try? metadata.exclusive(create: false) {
                guard let item = metadata.withIndex({ $0[name] }) else { return }
                let expiry: Double
                switch extending {
                case .none: expiry = item.expiry
                case .cacheTime: expiry = item.expiration.estimatedExpirationSince(now).timeIntervalSince1970
                case .expirationTime(let expiration): expiry = expiration.estimatedExpirationSince(now).timeIntervalSince1970
                }
                try metadata.append([.touch(name: name, lastAccess: now.timeIntervalSince1970, expiry: expiry)])
            }
        }

        /// Removes `name` if it is still expired once the index is caught up. Best effort.
        private func removeIfExpired(_ name: String, at now: Date) {
            try? metadata.exclusive(create: false) {
                guard let item = metadata.withIndex({ $0[name] }),
                      item.isExpired(at: now.timeIntervalSince1970) else { return }
                DiskIO.removeFile(metadata.paths.entry(name))
                try metadata.append([.remove(name: name)])
            }
        }

        // MARK: - Removing

        /// Removes the entry for `key`, if any. Throws `.cacheError(.invalidURLResource)` when its
        /// file cannot be deleted (a read-only or immutable folder; the entry then stays, served as
        /// before) and `.cacheError(.cacheIndexFailed)` when the removal cannot be recorded.
        public func remove(forKey key: String, forcedExtension: String? = nil) throws {
            try remove(forKey: key, forcedExtension: forcedExtension, extensionKey: key)
        }

        /// Removes the entry for `key`, whose file's automatic extension comes from `extensionKey`.
        func remove(forKey key: String, forcedExtension: String?, extensionKey: String) throws {
            let name = cacheFileName(forKey: key, forcedExtension: forcedExtension, extensionKey: extensionKey)
            do {
                try metadata.exclusive(create: false) {
                    let path = metadata.paths.entry(name)
                    if !DiskIO.removeFile(path), errno != ENOENT {
                        throw KingfisherError.cacheError(reason: .invalidURLResource(
                            error: DiskIO.posixError(), key: key,
                            url: directoryURL.appendingPathComponent(name, isDirectory: false)))
                    }
                    if metadata.withIndex({ $0[name] != nil }) {
                        try metadata.append([.remove(name: name)])
                    }
                }
            } catch is DiskMetadataStore.NotReady {
                metadata.forgetFolder()
            }
        }
    }
}
