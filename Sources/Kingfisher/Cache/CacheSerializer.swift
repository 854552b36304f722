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
/// PNG, JPEG (at `compressionQuality`), GIF and WebP originals keep their format; with no original or
/// an unknown one, PNG is written. An animated image never becomes a still: unless its format can
/// hold an animation (GIF, WebP), it is written as an animated GIF. With `preferCacheOriginalData`,
/// the original bytes are stored untouched whenever there are some (so a processed image is rebuilt
/// from them on read).
public struct DefaultCacheSerializer: CacheSerializer {
    /// The shared instance: quality 1, original data not preferred.
    public static let `default` = DefaultCacheSerializer()

    /// JPEG and lossy WebP quality, 0...1.
    public var compressionQuality: CGFloat = 1.0
    /// Store the original data as it is when there is some.
    public var preferCacheOriginalData: Bool = false

    /// Makes a serializer with the defaults.
    public init() {}

    /// Whether the downloaded bytes are stored as they came (``preferCacheOriginalData``).
    public var originalDataUsed: Bool { preferCacheOriginalData }

    /// The original bytes when preferred and present, else the image encoded in the original's format
    /// (PNG when the format is unknown, GIF for an animation whose format holds only stills).
    ///
    /// An image whose original is AVIF, HEIC or JPEG XL, which Kingfisher recognises but cannot encode
    /// yet, is stored as PNG (GIF when animated).
    public func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        if preferCacheOriginalData, let original {
            return original
        }
        return image.kf.data(format: Self.format(for: image, original: original), compressionQuality: compressionQuality)
    }

    /// The format the image is written in: the original's, except that an animation whose format
    /// cannot animate (none, unknown, PNG, JPEG) is written as GIF so no frame is lost. A format that
    /// cannot be encoded yet (AVIF, HEIC, JPEG XL) is written as PNG, or GIF when animated.
    static func format(for image: KFCrossPlatformImage, original: Data?) -> ImageFormat {
        let format = original?.kf.imageFormat ?? .unknown
        guard image.isAnimated else {
            switch format {
            case .AVIF, .HEIC, .JXL: return .PNG
            case .PNG, .JPEG, .GIF, .WebP, .unknown: return format
            }
        }
        switch format {
        case .GIF, .WebP: return format
        case .PNG, .JPEG, .AVIF, .HEIC, .JXL, .unknown: return .GIF
        }
    }

    /// Decodes `data` with the options' decoding settings; `nil` when it is not a readable image.
    public func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
    }
}

/// A serializer that always writes one format, whatever the original was: `.png` keeps the
/// transparency a processor such as round corners adds to a JPEG.
public struct FormatIndicatedCacheSerializer: CacheSerializer {
    /// Always PNG.
    public static let png = FormatIndicatedCacheSerializer(imageFormat: .PNG)
    /// Always JPEG at quality 1.
    public static let jpeg = FormatIndicatedCacheSerializer(imageFormat: .JPEG)
    /// Always GIF, every frame kept.
    public static let gif = FormatIndicatedCacheSerializer(imageFormat: .GIF)
    /// Always lossless WebP, every frame kept.
    public static let webp = FormatIndicatedCacheSerializer(imageFormat: .WebP)

    /// Always JPEG at `compressionQuality` (0...1).
    public static func jpeg(compressionQuality: CGFloat) -> FormatIndicatedCacheSerializer {
        FormatIndicatedCacheSerializer(imageFormat: .JPEG, compressionQuality: compressionQuality)
    }

    private let imageFormat: ImageFormat
    private let compressionQuality: CGFloat

    private init(imageFormat: ImageFormat, compressionQuality: CGFloat = 1.0) {
        self.imageFormat = imageFormat
        self.compressionQuality = compressionQuality
    }

    /// The image encoded in this serializer's format (WebP losslessly).
    public func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        if imageFormat == .WebP {
            return image.kf.webpRepresentation(compressionQuality: compressionQuality, lossless: true)
        }
        return image.kf.data(format: imageFormat, compressionQuality: compressionQuality)
    }

    /// Decodes `data` with the options' decoding settings; `nil` when it is not a readable image.
    public func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image encoded as `format` (PNG for `.unknown`), or `nil` if encoding failed.
    ///
    /// AVIF, HEIC and JPEG XL cannot be encoded yet and give PNG, as `.unknown` does, so a processed
    /// image of such an original is cached as PNG.
    public func data(format: ImageFormat, compressionQuality: CGFloat = 1.0) -> Data? {
        switch format {
        case .PNG, .unknown, .AVIF, .HEIC, .JXL: return pngRepresentation()
        case .JPEG: return jpegRepresentation(compressionQuality: compressionQuality)
        case .GIF: return gifRepresentation()
        case .WebP: return webpRepresentation(compressionQuality: compressionQuality)
        }
    }
}
