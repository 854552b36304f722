import Foundation

/// The container format of some image data, recognised from its first bytes.
///
/// Kingfisher's cases (`unknown`, `PNG`, `JPEG`, `GIF`) keep their spelling; `WebP` is added because
/// Linux servers meet it as often as the other three.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Not one of the formats below, or too few bytes to tell.
    case unknown
    /// Portable Network Graphics.
    case PNG
    /// JPEG (JFIF or Exif).
    case JPEG
    /// GIF 87a or 89a.
    case GIF
    /// WebP (lossy, lossless or animated).
    case WebP

    /// The format's usual name, as used in messages.
    public var description: String {
        switch self {
        case .unknown: return "unknown format"
        case .PNG: return "PNG"
        case .JPEG: return "JPEG"
        case .GIF: return "GIF"
        case .WebP: return "WebP"
        }
    }

    /// The usual file name extension, without a dot; `nil` for `.unknown`.
    public var fileExtension: String? {
        switch self {
        case .unknown: return nil
        case .PNG: return "png"
        case .JPEG: return "jpg"
        case .GIF: return "gif"
        case .WebP: return "webp"
        }
    }

    /// The format a file name extension names (`png`, `jpg`, `jpeg`, `gif`, `webp`, any case).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .PNG
        case "jpg", "jpeg", "jpe": self = .JPEG
        case "gif": self = .GIF
        case "webp": self = .WebP
        default: return nil
        }
    }

    /// Recognises the format from the magic bytes at the start of `bytes`.
    public init(sniffing bytes: UnsafeRawBufferPointer) {
        func starts(with prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + prefix.count else { return false }
            for (index, byte) in prefix.enumerated() where bytes[offset + index] != byte {
                return false
            }
            return true
        }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .PNG
        } else if starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .JPEG
        } else if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) {
            self = .GIF
        } else if starts(with: Array("RIFF".utf8)) && starts(with: Array("WEBP".utf8), at: 8) {
            self = .WebP
        } else {
            self = .unknown
        }
    }

    /// Recognises the format of `data` from its magic bytes.
    public init(data: Data) {
        self = data.withUnsafeBytes { ImageFormat(sniffing: $0) }
    }
}

extension KingfisherWrapper where Base == Data {
    /// The image format of the data, from its first bytes; `.unknown` when it is none we know.
    public var imageFormat: ImageFormat {
        ImageFormat(data: base)
    }
}
