import Foundation
import Kingfisher

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
    /// WebP when the client accepts it, otherwise JPEG for opaque stills, PNG for stills with
    /// alpha and GIF for animations; answered with `Vary: Accept`.
    case auto

    /// What the format turns into for a client sending `accept`: a fixed format, or
    /// ``Rendering/fallback`` for `auto` when the client does not accept WebP.
    func rendering(accept: String?) -> Rendering {
        switch self {
        case .jpeg: return .fixed(.JPEG)
        case .png: return .fixed(.PNG)
        case .webp: return .fixed(.WebP)
        case .gif: return .fixed(.GIF)
        case .auto: return Self.acceptsWebP(accept) ? .fixed(.WebP) : .fallback
        }
    }

    /// Whether an `Accept` header names `image/webp` with a non-zero quality.
    static func acceptsWebP(_ accept: String?) -> Bool {
        guard let accept else { return false }
        for item in accept.lowercased().split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "image/webp" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) }
            return (quality ?? 1) > 0
        }
        return false
    }

    /// How a rendition is encoded.
    enum Rendering: Sendable, Hashable {
        /// Always this format.
        case fixed(ImageFormat)
        /// JPEG, PNG or GIF, whichever keeps the image (opacity, animation) best.
        case fallback

        /// A name for cache keys.
        var token: String {
            switch self {
            case .fixed(let format): return format.rawValue.lowercased()
            case .fallback: return "fallback"
            }
        }

        /// The serializer that writes this rendition.
        var serializer: RenditionSerializer { RenditionSerializer(rendering: self) }
    }
}

/// Encodes rendered images in the format a request asked for, and reads them back.
struct RenditionSerializer: CacheSerializer {
    let rendering: OutputFormat.Rendering

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        let format: ImageFormat
        switch rendering {
        case .fixed(let fixed): format = fixed
        case .fallback: format = image.isAnimated ? .GIF : (image.isOpaque ? .JPEG : .PNG)
        }
        return image.kf.data(format: format, compressionQuality: 0.85)
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        try? KFCrossPlatformImage(data: data, options: options.imageCreatingOptions)
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
