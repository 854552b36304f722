import Foundation

extension DiskStorage.Backend {
    /// Temporary files older than this are removed by a sweep even when their writer seems alive.
    static var staleTemporaryAge: TimeInterval { 3600 }

    /// Removes every entry and its file. Temporary files of stores in progress are left alone.
    ///
    /// Throws `.cacheError(.fileEnumeratorCreationFailed)` when the folder cannot be opened for
    /// listing, `.cacheError(.invalidFileEnumeratorContent)` when its listing fails part way,
    /// and `.cacheError(.cacheIndexFailed)` when the journal cannot be replaced.
    public func removeAll() throws {
        do {
            try metadata.exclusive(create: false) {
                for name in try listFolder() where DiskFileName.isEntryName(name) {
                    DiskIO.removeFile(metadata.paths.entry(name))
                }
                try metadata.resetJournal()
            }
        } catch is DiskMetadataStore.NotReady {
            metadata.forgetFolder()
        }
    }

    /// Removes expired entries and returns their files' URLs.
    ///
    /// Throws as ``removeAll()`` does when the folder cannot be listed.
    ///
    /// The same sweep repairs the folder: entries whose file is gone leave the index, files no
    /// entry knows (renamed in by a process killed before it could record them) are adopted with
    /// the configured expiration, and temporary files whose writer is dead or that are over an
    /// hour old are deleted.
    public func removeExpiredValues() throws -> [URL] {
        let config = self.config
        do {
            return try metadata.exclusive(create: false) {
                let now = config.clock.now()
                let stamp = now.timeIntervalSince1970
                let items = metadata.withIndex { $0.items }
                let present = Set(try listFolder())
                var removed: [URL] = []
                var records: [DiskJournalRecord] = []
                for (name, item) in items {
                    if !present.contains(name) {
                        records.append(.remove(name: name))
                    } else if item.isExpired(at: stamp) {
                        DiskIO.removeFile(metadata.paths.entry(name))
                        records.append(.remove(name: name))
                        removed.append(directoryURL.appendingPathComponent(name, isDirectory: false))
                    }
                }
                for name in present where items[name] == nil {
                    let path = metadata.paths.entry(name)
                    if name.hasPrefix(DiskFileName.temporaryPrefix) {
                        if isStaleTemporaryFile(name: name, path: path) { DiskIO.removeFile(path) }
                    } else if DiskFileName.isEntryName(name), let size = regularFileSize(path) {
                        records.append(.put(
                            name: name, key: nil, size: size, lastAccess: stamp,
                            expiry: config.expiration.estimatedExpirationSince(now).timeIntervalSince1970,
                            expiration: config.expiration))
                    }
                }
                try metadata.append(records)
                return removed
            }
        } catch is DiskMetadataStore.NotReady {
            metadata.forgetFolder()
            return []
        }
    }

    /// When the entries take more than `sizeLimit`, removes least-recently-used ones until they
    /// take at most half of it, and returns their files' URLs. Nothing happens without a limit.
    public func removeSizeExceededValues() throws -> [URL] {
        let limit = config.sizeLimit
        guard limit > 0 else { return [] }
        do {
            return try metadata.exclusive(create: false) { try trimLocked(toFit: limit) }
        } catch is DiskMetadataStore.NotReady {
            metadata.forgetFolder()
            return []
        }
    }

    /// The bytes all entries take, as the index (caught up with other processes) knows them.
    public func totalSize() throws -> UInt {
        metadata.refresh()
        return UInt(max(0, metadata.withIndex { $0.totalSize }))
    }

    /// The live (unexpired) entries, most recently used first, for listing a cache.
    public func entries() throws -> [DiskStorage.Entry] {
        metadata.refresh()
        let now = config.clock.now().timeIntervalSince1970
        let items = metadata.withIndex { $0.items }
        return items.filter { !$0.value.isExpired(at: now) }
            .sorted { $0.value.lastAccess != $1.value.lastAccess ? $0.value.lastAccess > $1.value.lastAccess
                : $0.value.order > $1.value.order }
            .map { name, item in
                DiskStorage.Entry(
                    key: item.key, fileURL: directoryURL.appendingPathComponent(name, isDirectory: false),
                    size: item.size, lastAccess: Date(timeIntervalSince1970: item.lastAccess),
                    expiration: Date(timeIntervalSince1970: item.expiry))
            }
    }

    /// Removes least-recently-used entries until the total is at most half of `limit`, when it
    /// is over `limit`. Only under the folder's lock.
    func trimLocked(toFit limit: UInt) throws -> [URL] {
        let victims: [String] = metadata.withIndex { index in
            guard index.totalSize > limit else { return [] }
            var total = index.totalSize
            let target = Int(limit / 2)
            var names: [String] = []
            for name in index.namesByRecency() {
                guard total > target else { break }
                total -= index[name]?.size ?? 0
                names.append(name)
            }
            return names
        }
        for name in victims {
            DiskIO.removeFile(metadata.paths.entry(name))
        }
        try metadata.append(victims.map { .remove(name: $0) })
        return victims.map { directoryURL.appendingPathComponent($0, isDirectory: false) }
    }

    /// The names in the cache folder; throws `.fileEnumeratorCreationFailed` or
    /// `.invalidFileEnumeratorContent` (as `.cacheError`) when it cannot be listed.
    func listFolder() throws -> [String] {
        switch DiskFolderListing.names(atPath: metadata.paths.folder) {
        case .success(let names): return names
        case .failure(let failure): throw DiskFolderListing.cacheError(failure, folder: directoryURL)
        }
    }

    private func regularFileSize(_ path: String) -> Int? {
        guard let attributes = try? config.fileManager.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    /// A temporary file (`.kf-tmp-<pid>-<n>`) whose writer is dead or that is over an hour old.
    private func isStaleTemporaryFile(name: String, path: String) -> Bool {
        let parts = name.dropFirst(DiskFileName.temporaryPrefix.count).split(separator: "-")
        if let first = parts.first, let pid = Int32(first), !DiskIO.processExists(pid) { return true }
        guard let attributes = try? config.fileManager.attributesOfItem(atPath: path),
              let modified = attributes[.modificationDate] as? Date else { return false }
        return Date().timeIntervalSince(modified) > Self.staleTemporaryAge
    }
}
