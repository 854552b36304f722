import Foundation
import Kingfisher
import KingfisherSynchronization

/// The output format an image request names.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// JPEG at quality 0.85.
    case jpeg
    /// PNG.
    case png
    /// WebP (lossy at quality 0.85 for opaque images).
    case webp
    /// GIF (animated when the source is).
    case gif
    /// AVIF at quality 0.85 and the server's encoder speed (``ImageServerConfiguration/avifSpeed``).
    case avif
    /// Lossy JPEG XL at quality 0.85.
    case jxl
    /// Negotiated from the request's `Accept` header and answered with `Vary: Accept`: AVIF when
    /// the client names `image/avif`, else WebP when it names `image/webp`, else JPEG for opaque
    /// stills, PNG for stills with alpha and GIF for animations.
    ///
    /// A client must name a type to get it (`image/*` and `*/*` do not count), and a type named
    /// with `q=0` is refused; when both are named with different qualities the higher wins. An
    /// animation goes to the next format when the encoder wrote only a still, and an
    /// image the preferred encoder fails on goes to the next format too, so the answer is always
    /// one the client named or one every client reads.
    case auto

    /// What the format turns into for a client sending `accept`: a fixed format, or for `auto`
    /// the formats the client names, in the order the server tries them.
    func rendering(accept: String?) -> Rendering {
        switch self {
        case .jpeg: return .fixed(.JPEG)
        case .png: return .fixed(.PNG)
        case .webp: return .fixed(.WebP)
        case .gif: return .fixed(.GIF)
        case .avif: return .fixed(.AVIF)
        case .jxl: return .fixed(.JXL)
        case .auto: return .negotiated(Self.negotiated(AcceptHeader(accept)))
        }
    }

    /// The modern formats `accept` names acceptably, best first: higher quality first, AVIF before
    /// WebP at equal quality (AVIF files are usually the smaller).
    static func negotiated(_ accept: AcceptHeader) -> [ImageFormat] {
        let candidates: [(format: ImageFormat, quality: Double)] = [(.AVIF, "image/avif"), (.WebP, "image/webp")]
            .compactMap { format, type in
                guard let quality = accept.quality(ofExactly: type), quality > 0 else { return nil }
                return (format, quality)
            }
        // A stable sort keeps the server's order among equal qualities.
        return candidates.enumerated()
            .sorted { ($0.element.quality, -$0.offset) > ($1.element.quality, -$1.offset) }
            .map(\.element.format)
    }

    /// How a rendition is encoded.
    enum Rendering: Sendable, Hashable {
        /// Always this format.
        case fixed(ImageFormat)
        /// The first of these formats that keeps the image (an animation stays animated), else
        /// JPEG, PNG or GIF, whichever keeps the image (opacity, animation) best.
        case negotiated([ImageFormat])
        /// The source's format; HEIC, which the server cannot write, becomes JPEG (PNG with alpha).
        case source
        /// The first of these formats for a still image, as ``source`` for an animation or when
        /// every one of them fails.
        case sourceOr([ImageFormat])

        /// JPEG, PNG or GIF only: what `auto` gives a client that names no modern format.
        static let fallback = Rendering.negotiated([])

        /// A name for cache keys: one per distinct output (`webp`, `avif+webp+fallback`, `fallback`).
        var token: String {
            switch self {
            case .fixed(let format): return format.rawValue.lowercased()
            case .negotiated(let formats): return (formats.map { $0.rawValue.lowercased() } + ["fallback"]).joined(separator: "+")
            case .source: return "source"
            case .sourceOr(let formats): return (formats.map { $0.rawValue.lowercased() } + ["source"]).joined(separator: "+")
            }
        }
    }
}

/// Encodes rendered images in the format a request asked for, and reads them back.
struct RenditionSerializer: CacheSerializer {
    /// The format or formats to write.
    let rendering: OutputFormat.Rendering
    /// Quality, AVIF speed and JPEG XL effort for every format.
    let encoding: ImageEncodingOptions
    /// The most bytes a lossy answer may take: the quality is lowered by a quarter at a time
    /// (thumbor's rule) until it fits, down to quality 0.05.
    var maxBytes: Int?
    /// The source's format, for ``OutputFormat/Rendering/source`` when `original` is not given.
    var sourceFormat: SourceFormatBox?
    /// What becomes of transparency in JPEG.
    var alphaInOpaqueFormats: AlphaInOpaqueFormats = .compositeOverBlack

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        guard let data = encodeOnce(image, original: original, encoding: encoding) else { return nil }
        guard let maxBytes, data.count > maxBytes, Self.lossy.contains(ImageFormat(data: data)) else { return data }
        var smaller = encoding
        var best = data
        while best.count > maxBytes, smaller.compressionQuality > 0.05 {
            smaller.compressionQuality = max(0.05, smaller.compressionQuality * 0.75)
            guard let next = encodeOnce(image, original: original, encoding: smaller) else { break }
            best = next
        }
        return best
    }

    /// Formats whose size falls with the quality.
    private static let lossy: Set<ImageFormat> = [.JPEG, .WebP, .AVIF, .JXL]

    /// One encoding at `encoding`'s quality.
    private func encodeOnce(_ image: KFCrossPlatformImage, original: Data?, encoding: ImageEncodingOptions) -> Data? {
        switch rendering {
        case .fixed(let format):
            return encode(image, as: format, encoding: encoding)
        case .sourceOr(let preferred):
            if !image.isAnimated {
                for format in preferred {
                    if let data = encode(image, as: format, encoding: encoding) { return data }
                }
            }
            return encodeSource(image, original: original, encoding: encoding)
        case .source:
            return encodeSource(image, original: original, encoding: encoding)
        case .negotiated(let preferred):
            for format in preferred {
                guard let data = encode(image, as: format, encoding: encoding) else { continue }
                // An encoder may merge identical neighbouring frames: a still is what is refused.
                if !image.isAnimated || (try? ImageHeader(data: data))?.frameCount ?? 1 > 1 { return data }
            }
            return encode(image, as: image.isAnimated ? .GIF : (image.isOpaque ? .JPEG : .PNG), encoding: encoding)
        }
    }

    /// `image` in the source's format, as ``OutputFormat/Rendering/source`` describes.
    private func encodeSource(_ image: KFCrossPlatformImage, original: Data?, encoding: ImageEncodingOptions) -> Data? {
        let format = original.map { ImageFormat(data: $0) } ?? sourceFormat?.format ?? .unknown
        switch format {
        case .JPEG, .PNG, .WebP, .AVIF, .JXL: return encode(image, as: format, encoding: encoding)
        case .GIF: return encode(image, as: image.isAnimated ? .GIF : .PNG, encoding: encoding)
        case .HEIC, .unknown:
            return encode(image, as: image.isAnimated ? .GIF : (image.isOpaque ? .JPEG : .PNG), encoding: encoding)
        }
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        try? KFCrossPlatformImage(data: data, options: options.imageCreatingOptions)
    }

    /// `image` as `format` with `encoding`; `nil` when the encoder failed.
    private func encode(_ image: KFCrossPlatformImage, as format: ImageFormat, encoding: ImageEncodingOptions) -> Data? {
        if format == .JPEG, alphaInOpaqueFormats == .discard, !image.isOpaque {
            return image.droppingAlpha().kf.data(format: .JPEG, compressionQuality: encoding.compressionQuality)
        }
        switch format {
        case .AVIF, .JXL: return try? image.encoded(as: format, options: encoding)
        default: return image.kf.data(format: format, compressionQuality: encoding.compressionQuality)
        }
    }
}

extension ImageFormat {
    /// The MIME type answered for bytes of this format.
    var mimeType: String {
        switch self {
        case .JPEG: return "image/jpeg"
        case .PNG: return "image/png"
        case .GIF: return "image/gif"
        case .WebP: return "image/webp"
        case .AVIF: return "image/avif"
        case .HEIC: return "image/heic"
        case .JXL: return "image/jxl"
        case .unknown: return "application/octet-stream"
        }
    }
}

/// The format of the source a rendition was made from, noted by the processor that decoded it.
final class SourceFormatBox: Sendable {
    private let value = Mutex<ImageFormat?>(nil)

    /// Notes `format`.
    func record(_ format: ImageFormat) {
        value.withLock { $0 = format }
    }

    /// The format noted, if any.
    var format: ImageFormat? { value.withLock { $0 } }
}
