import Foundation

/// The image part of a thumbor path turned into the URL to fetch, as thumbor's HTTP loader does it.
///
/// The router percent-decodes the part once; the loader then re-quotes it (unless what is left still
/// holds escapes, which stay as they are) and prefixes `http://` when no scheme is given. Beyond
/// thumbor, `http:/host` and `https:/host` (a `//` collapsed by a proxy) are repaired, and a scheme
/// other than http(s) is refused instead of being read as a host name.
enum ThumborImageURI {
    /// The source URL of `raw` (still percent-encoded); throws 400 when it is not an http(s) URL with a host.
    static func url(fromRaw raw: Substring) throws -> URL {
        let decoded = try PercentEncoding.decodedString(raw, what: "the image URI")
        var text = PercentEncoding.containsEscape(decoded) ? decoded : PercentEncoding.quote(decoded)
        let lowered = text.lowercased()
        let absolute = lowered.hasPrefix("http://") || lowered.hasPrefix("https://")
        if !absolute, lowered.hasPrefix("http:/") || lowered.hasPrefix("https:/") {
            text.insert("/", at: text.index(after: text.firstIndex(of: ":") ?? text.startIndex))
        } else if !absolute, lowered.hasPrefix("http:") || lowered.hasPrefix("https:") || hasForeignScheme(lowered) {
            throw ImageServerError(.badRequest, "the image URI must be an http or https URL: \(decoded)")
        } else if !absolute {
            text = "http://" + text
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            throw ImageServerError(.badRequest, "no original image was specified in the given URL: \(decoded)")
        }
        return url
    }

    /// Whether `text` starts with `scheme://` for some scheme (a host with a port has no `//`).
    private static func hasForeignScheme(_ text: String) -> Bool {
        guard let range = text.range(of: "://") else { return false }
        let scheme = text[..<range.lowerBound]
        return !scheme.isEmpty && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
    }
}

/// Python's `urllib.parse` percent-encoding rules, as thumbor and Tornado apply them.
enum PercentEncoding {
    /// `unquote`: every `%XX` becomes its byte; a `%` not followed by two hex digits stays.
    static func decodedBytes(_ text: some StringProtocol) -> [UInt8] {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    /// `unquote` into UTF-8 text; throws 400 when the bytes are not UTF-8 (as Tornado answers).
    static func decodedString(_ text: some StringProtocol, what: String) throws -> String {
        guard let string = String(validating: decodedBytes(text), as: UTF8.self) else {
            throw ImageServerError(.badRequest, "\(what) is not UTF-8 once percent-decoded")
        }
        return string
    }

    /// Whether `text` holds a `%XX` escape (so `unquote` would change it).
    static func containsEscape(_ text: String) -> Bool {
        decodedBytes(text).count != text.utf8.count
    }

    /// The punctuation `quote` leaves alone: thumbor's safe set and Python's always-safe `_.-~`.
    private static let quoteSafe = Set("~@#$&()*!+=:;,.?/'_-".utf8)

    /// `quote(text, safe="~@#$&()*!+=:;,.?/'")`: every other byte but ASCII letters, digits and `_.-~`
    /// becomes `%XX` (upper-case hex).
    static func quote(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            if isAlphanumeric || quoteSafe.contains(byte) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
