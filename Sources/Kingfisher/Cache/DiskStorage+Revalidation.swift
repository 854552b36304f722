import Foundation

extension DiskStorage.Backend {
    /// Whether `key` has an entry that has expired but has not been removed yet (its file is
    /// still there), so it can be revalidated instead of fetched again. Never removes it.
    public func hasExpiredEntry(forKey key: String, forcedExtension: String? = nil) -> Bool {
        let config = self.config
        let name = DiskFileName.name(forKey: key, forcedExtension: forcedExtension, extensionKey: key, config: config)
        guard let item = metadata.item(named: name), item.isExpired(at: config.clock.now().timeIntervalSince1970) else {
            return false
        }
        return DiskIO.fileExists(metadata.paths.entry(name))
    }

    /// Gives the entry for `key` a new expiry, `expiration` from now (default: the expiration it
    /// was stored with), whether or not it had expired; the file is not rewritten.
    ///
    /// - Returns: False when there is no entry for `key` or the change cannot be recorded.
    @discardableResult
    public func refreshExpiration(forKey key: String, forcedExtension: String? = nil, expiration: StorageExpiration? = nil) -> Bool {
        let config = self.config
        let name = DiskFileName.name(forKey: key, forcedExtension: forcedExtension, extensionKey: key, config: config)
        let now = config.clock.now()
        let refreshed = try? metadata.exclusive(create: false) { () throws -> Bool in
            guard let item = metadata.withIndex({ $0[name] }), DiskIO.fileExists(metadata.paths.entry(name)) else { return false }
            let expiry = (expiration ?? item.expiration).estimatedExpirationSince(now).timeIntervalSince1970
            try metadata.append([.touch(name: name, lastAccess: now.timeIntervalSince1970, expiry: expiry)])
            return true
        }
        return refreshed ?? false
    }
}

extension ImageCache {
    /// The key the validators of the entry `computedKey` are kept under, in the same disk storage.
    static func validatorsKey(_ computedKey: String) -> String {
        "\(computedKey)#kf-validators"
    }

    /// Keeps `validators` for the disk entry `computedKey`, as long as the entry may be revalidated (a year).
    func storeValidators(_ validators: ResponseValidators, forComputedKey computedKey: String) {
        guard let data = try? JSONEncoder().encode(validators) else { return }
        try? diskStorage.store(value: data, forKey: Self.validatorsKey(computedKey), expiration: .days(365))
    }

    /// The validators kept for the disk entry `computedKey`, if any.
    func validators(forComputedKey computedKey: String) -> ResponseValidators? {
        guard let data = try? diskStorage.value(forKey: Self.validatorsKey(computedKey), extendingExpiration: .none) else {
            return nil
        }
        return try? JSONDecoder().decode(ResponseValidators.self, from: data)
    }
}
