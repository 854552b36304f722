import Foundation

/// Turns images into bytes for the disk cache and back.
///
/// `original` is the data the image was decoded from, when there is one; a serializer may keep it
/// as it is, or re-encode the (processed) image.
public protocol CacheSerializer: Sendable {
    /// Bytes to store for `image`; `nil` when it cannot be serialized.
    func data(with image: KFCrossPlatformImage, original: Data?) -> Data?

    /// The image stored as `data`; `nil` when it cannot be read.
    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?

    /// True when the serializer stores the original data as it is (the cache may then skip work).
    var originalDataUsed: Bool { get }
}

extension CacheSerializer {
    /// False: by default the image is encoded.
    public var originalDataUsed: Bool { false }
}

/// Kingfisher's default serializer: the image is encoded in the format of its original data.
///
/// PNG, JPEG (at `compressionQuality`), GIF, WebP, AVIF and JPEG XL originals keep their format
/// (AVIF and lossy JPEG XL at `compressionQuality`, with the encoders' default speed and effort);
/// with no original or an unknown one, PNG is written. HEIC cannot be written (Kingfisher has no
/// HEVC encoder), so an image whose original is HEIC is written as JPEG when it is opaque (much
/// smaller than PNG for a photograph) and as PNG when it has transparency (JPEG has no alpha).
///
/// An animation never becomes a still: unless its format can hold an animation (GIF, WebP, and
/// AVIF or JPEG XL when their encoder wrote an animation), it is written as an animated GIF. With
/// `preferCacheOriginalData`, the original bytes are stored untouched whenever there are some (so
/// a processed image is rebuilt from them on read).
public struct DefaultCacheSerializer: CacheSerializer {
    /// The shared instance: quality 1, original data not preferred.
    public static let `default` = DefaultCacheSerializer()

    /// JPEG, lossy WebP, AVIF and lossy JPEG XL quality, 0...1.
    public var compressionQuality: CGFloat = 1.0
    /// Store the original data as it is when there is some.
    public var preferCacheOriginalData: Bool = false

    /// Makes a serializer with the defaults.
    public init() {}

    /// Whether the downloaded bytes are stored as they came (``preferCacheOriginalData``).
    public var originalDataUsed: Bool { preferCacheOriginalData }

    /// The original bytes when preferred and present, else the image encoded in the original's
    /// format (see the type's discussion for HEIC, unknown formats and animations).
    public func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        if preferCacheOriginalData, let original {
            return original
        }
        let format = Self.format(for: image, original: original)
        if image.isAnimated, format == .AVIF || format == .JXL {
            // Keep the original's format only if its encoder wrote an animation, not the first
            // frame alone (an encoder may merge identical neighbouring frames, so not a count).
            if let data = image.kf.data(format: format, compressionQuality: compressionQuality),
               (try? ImageHeader(data: data))?.frameCount ?? 1 > 1 {
                return data
            }
            return image.kf.data(format: .GIF)
        }
        return image.kf.data(format: format, compressionQuality: compressionQuality)
    }

    /// The format the image is written in: the original's, except that a HEIC original gives JPEG
    /// (opaque) or PNG (with alpha), and an animation whose format cannot animate (none, unknown,
    /// PNG, JPEG, HEIC) gives GIF so no frame is lost.
    static func format(for image: KFCrossPlatformImage, original: Data?) -> ImageFormat {
        let format = original?.kf.imageFormat ?? .unknown
        guard image.isAnimated else {
            switch format {
            case .HEIC: return image.isOpaque ? .JPEG : .PNG
            case .PNG, .JPEG, .GIF, .WebP, .AVIF, .JXL, .unknown: return format
            }
        }
        switch format {
        case .GIF, .WebP, .AVIF, .JXL: return format
        case .PNG, .JPEG, .HEIC, .unknown: return .GIF
        }
    }

    /// Decodes `data` with the options' decoding settings; `nil` when it is not a readable image.
    public func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image encoded as `format` (PNG for `.unknown`), or `nil` if encoding failed.
    ///
    /// AVIF and lossy JPEG XL are written at `compressionQuality` with the encoders' default speed
    /// and effort (``ImageEncodingOptions``); HEIC gives `nil`, since Kingfisher cannot encode it.
    public func data(format: ImageFormat, compressionQuality: CGFloat = 1.0) -> Data? {
        switch format {
        case .PNG, .unknown: return pngRepresentation()
        case .JPEG: return jpegRepresentation(compressionQuality: compressionQuality)
        case .GIF: return gifRepresentation()
        case .WebP: return webpRepresentation(compressionQuality: compressionQuality)
        case .AVIF, .JXL: return try? base.encoded(as: format, options: ImageEncodingOptions(compressionQuality: compressionQuality))
        case .HEIC: return nil
        }
    }
}
