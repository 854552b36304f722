import Foundation

/// How a disk storage turns keys into file names.
enum DiskFileName {
    /// The longest file name Linux file systems accept, in bytes.
    static let maximumLength = 255
    /// The prefix of temporary files being written; never a cache entry's name.
    static let temporaryPrefix = ".kf-tmp-"
    /// The metadata folder inside the cache folder.
    static let metadataFolder = ".kf"

    /// The file name for `key`: its SHA-256 hex or the key made safe, plus an extension.
    static func name(forKey key: String, forcedExtension: String?, config: DiskStorage.Config) -> String {
        let fixedExtension = forcedExtension ?? config.pathExtension
        if config.usesHashedFileName {
            return hashedName(forKey: key, fixedExtension: fixedExtension,
                              autoExtension: config.autoExtAfterHashedFileName)
        }
        let suffix = fixedExtension.map { ".\($0)" } ?? ""
        if let safe = safeName(forKey: key), safe.utf8.count + suffix.utf8.count <= maximumLength {
            return safe + suffix
        }
        return hashedName(forKey: key, fixedExtension: fixedExtension, autoExtension: false)
    }

    private static func hashedName(forKey key: String, fixedExtension: String?, autoExtension: Bool) -> String {
        let hash = key.kf.sha256
        if let ext = fixedExtension { return "\(hash).\(ext)" }
        if autoExtension, let ext = key.kf.pathExtensionOfURL { return "\(hash).\(ext)" }
        return hash
    }

    /// The key with `/`, `%`, NUL and a leading `.` percent-escaped; nil for an empty key.
    static func safeName(forKey key: String) -> String? {
        guard !key.isEmpty else { return nil }
        var out = ""
        out.reserveCapacity(key.utf8.count)
        for (offset, scalar) in key.unicodeScalars.enumerated() {
            switch scalar {
            case "/": out += "%2F"
            case "%": out += "%25"
            case "\u{0}": out += "%00"
            case "." where offset == 0: out += "%2E"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether a name found in the cache folder can be an entry (not metadata or a temporary file).
    static func isEntryName(_ name: String) -> Bool {
        !name.hasPrefix(".")
    }
}
