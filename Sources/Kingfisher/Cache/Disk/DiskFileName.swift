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
    ///
    /// With `autoExtAfterHashedFileName`, a hashed name ends in the extension of `extensionKey`
    /// (see ``automaticExtension(of:)``); the image cache passes the key before its processor
    /// identifier, so every processed entry of `photo.jpg` ends in `.jpg`, and a computed key
    /// given whole (`photo.jpg@PROCESSOR`) gives the same.
    static func name(forKey key: String, forcedExtension: String?, extensionKey: String, config: DiskStorage.Config) -> String {
        let fixedExtension = forcedExtension ?? config.pathExtension
        if config.usesHashedFileName {
            let auto = config.autoExtAfterHashedFileName ? automaticExtension(of: extensionKey) : nil
            return hashedName(forKey: key, fixedExtension: fixedExtension ?? auto)
        }
        let suffix = fixedExtension.map { ".\($0)" } ?? ""
        if let safe = safeName(forKey: key), safe.utf8.count + suffix.utf8.count <= maximumLength {
            return safe + suffix
        }
        return hashedName(forKey: key, fixedExtension: fixedExtension)
    }

    private static func hashedName(forKey key: String, fixedExtension: String?) -> String {
        let hash = key.kf.sha256
        if let ext = fixedExtension { return "\(hash).\(ext)" }
        return hash
    }

    /// The extension a hashed name takes from `key`, as Kingfisher takes it: the part of the key
    /// before its first `@` (what follows is a processor identifier), then what follows that
    /// part's last `.`; none when that is empty or holds a `/` (the dot was in a host or folder
    /// name, as when a URL has `@` in its path) or a `?` (a query follows).
    static func automaticExtension(of key: String) -> String? {
        let base = key.firstIndex(of: "@").map { key[..<$0] } ?? key[...]
        guard let dot = base.lastIndex(of: ".") else { return nil }
        let ext = base[base.index(after: dot)...]
        guard !ext.isEmpty, !ext.contains("/"), !ext.contains("?") else { return nil }
        return String(ext)
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
