import Foundation

/// The container format of some image data, recognised from its first bytes.
///
/// Kingfisher's cases (`unknown`, `PNG`, `JPEG`, `GIF`) keep their spelling; `WebP` is added because
/// Linux servers meet it as often as the other three.
///
/// `AVIF`, `HEIC` and `JXL` are read through Debian's libavif, libheif and libjxl, opened the first
/// time such an image is decoded; AVIF and JPEG XL are also written, HEIC is read only.
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
    /// AVIF: AV1 images in a HEIF (ISO-BMFF) file, still or a sequence.
    case AVIF
    /// HEIC: HEVC images in a HEIF (ISO-BMFF) file; its primary still image is decoded, never encoded.
    case HEIC
    /// JPEG XL, as a bare codestream or in its container, still or animated.
    case JXL

    /// The format's usual name, as used in messages.
    public var description: String {
        switch self {
        case .unknown: return "unknown format"
        case .PNG: return "PNG"
        case .JPEG: return "JPEG"
        case .GIF: return "GIF"
        case .WebP: return "WebP"
        case .AVIF: return "AVIF"
        case .HEIC: return "HEIC"
        case .JXL: return "JPEG XL"
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
        case .AVIF: return "avif"
        case .HEIC: return "heic"
        case .JXL: return "jxl"
        }
    }

    /// The format a file name extension names (`png`, `jpg`, `jpeg`, `gif`, `webp`, `avif`, `heic`,
    /// `heif`, `jxl`, any case).
    public init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "png": self = .PNG
        case "jpg", "jpeg", "jpe": self = .JPEG
        case "gif": self = .GIF
        case "webp": self = .WebP
        case "avif": self = .AVIF
        case "heic", "heif": self = .HEIC
        case "jxl": self = .JXL
        default: return nil
        }
    }

    /// Recognises the format from the magic bytes at the start of `bytes`.
    ///
    /// For an ISO-BMFF file (`ftyp` first) the major brand decides (`avif`/`avis` → AVIF; `heic`,
    /// `heix`, `hevc`, `heim`, `heis`, `hevm`, `hevs` → HEIC); with a codec-neutral major brand
    /// (`mif1`, `msf1`) the primary item's coding (`av01` or `hvc1`) decides when the boxes can be
    /// read, else the compatible brands. JPEG XL is its bare codestream (`FF 0A`) or its container.
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
        } else if starts(with: JXLCodec.containerSignature) || starts(with: JXLCodec.codestreamSignature) {
            self = .JXL
        } else if starts(with: Array("ftyp".utf8), at: 4) {
            self = ISOBMFFFileType.format(of: bytes)
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
