import Foundation
import Kingfisher

/// Reads `IMGPROXY_*` variables with the value syntax of imgproxy's `env` package.
struct ImgproxyEnvironment {
    /// The variables.
    let values: [String: String]

    /// Wraps `values`.
    init(_ values: [String: String]) { self.values = values }

    /// The variable's text, or `nil` when unset (an empty value counts as set).
    func string(_ name: String) -> String? { values[name] }

    /// A comma-separated list, items trimmed; `[]` when unset or empty.
    func list(_ name: String) -> [String] {
        guard let text = values[name], !text.isEmpty else { return [] }
        return text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// An integer (Go `strconv.Atoi` syntax), `nil` when unset or empty.
    func int(_ name: String) throws -> Int? {
        guard let text = values[name], !text.isEmpty else { return nil }
        guard let value = Int(text) else { throw ImgproxyConfigurationError("\(name) must be an integer, not '\(text)'") }
        return value
    }

    /// A boolean (Go `strconv.ParseBool` syntax), `nil` when unset or empty.
    func bool(_ name: String) throws -> Bool? {
        guard let text = values[name], !text.isEmpty else { return nil }
        guard let value = ImgproxyArguments.goBool(text) else {
            throw ImgproxyConfigurationError("\(name) must be a boolean (1, t, true, 0, f, false), not '\(text)'")
        }
        return value
    }

    /// A comma-separated list of hex strings as bytes; `[]` when unset or empty.
    func hexList(_ name: String) throws -> [[UInt8]] {
        try list(name).map { try Self.hex($0, name: name) }
    }

    /// `format=quality` pairs, comma-separated (`webp=79,avif=63`).
    func formatQualities(_ name: String) throws -> [ImageFormat: Int] {
        guard let text = values[name], !text.isEmpty else { return [:] }
        var result: [ImageFormat: Int] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { throw ImgproxyConfigurationError("\(name): invalid format quality '\(item)'") }
            let formatName = pair[0].trimmingCharacters(in: .whitespaces)
            let qualityText = pair[1].trimmingCharacters(in: .whitespaces)
            guard let quality = Int(qualityText), (1...100).contains(quality) else {
                throw ImgproxyConfigurationError("\(name): invalid quality '\(qualityText)' for \(formatName)")
            }
            switch ImgproxyFormatName.lookup(formatName) {
            case .writable(let format): result[format] = quality
            case .unwritable: continue
            case nil: throw ImgproxyConfigurationError("\(name): unknown image format '\(formatName)'")
            }
        }
        return result
    }

    /// The bytes of hex `text` (either case, even length).
    static func hex(_ text: String, name: String) throws -> [UInt8] {
        let digits = Array(text.trimmingCharacters(in: .whitespaces).utf8)
        guard digits.count.isMultiple(of: 2) else {
            throw ImgproxyConfigurationError("\(name) must be hex-encoded: '\(text)' has an odd number of digits")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else {
                throw ImgproxyConfigurationError("\(name) must be hex-encoded: '\(text)' is not hex")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The value of one hex digit.
    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// imgproxy's image format names (`imagetype.GetTypeByName`), and which of them kf serve writes.
enum ImgproxyFormatName: Equatable {
    /// A format kf serve encodes.
    case writable(ImageFormat)
    /// A format imgproxy knows that kf serve cannot write (HEIC, BMP, TIFF, ICO, SVG).
    case unwritable(String)

    /// The format named `name`, or `nil` when imgproxy knows no such name.
    static func lookup(_ name: String) -> ImgproxyFormatName? {
        switch name {
        case "jpeg", "jpg": return .writable(.JPEG)
        case "png": return .writable(.PNG)
        case "webp": return .writable(.WebP)
        case "gif": return .writable(.GIF)
        case "avif": return .writable(.AVIF)
        case "jxl": return .writable(.JXL)
        case "heic", "bmp", "tiff", "ico", "svg": return .unwritable(name)
        default: return nil
        }
    }
}
