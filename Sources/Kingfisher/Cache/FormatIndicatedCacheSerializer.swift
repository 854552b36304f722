import Foundation

/// A serializer that always writes one format, whatever the original was: `.png` keeps the
/// transparency a processor such as round corners adds to a JPEG.
///
/// There is no HEIC serializer: Kingfisher decodes HEIC but cannot encode it.
public struct FormatIndicatedCacheSerializer: CacheSerializer {
    /// Always PNG.
    public static let png = FormatIndicatedCacheSerializer(imageFormat: .PNG)
    /// Always JPEG at quality 1.
    public static let jpeg = FormatIndicatedCacheSerializer(imageFormat: .JPEG)
    /// Always GIF, every frame kept.
    public static let gif = FormatIndicatedCacheSerializer(imageFormat: .GIF)
    /// Always lossless WebP, every frame kept.
    public static let webp = FormatIndicatedCacheSerializer(imageFormat: .WebP, encoding: ImageEncodingOptions(compressionQuality: 1, lossless: true))
    /// Always AVIF at quality 0.9 and libavif's default speed (6).
    public static let avif = FormatIndicatedCacheSerializer(imageFormat: .AVIF, encoding: ImageEncodingOptions(compressionQuality: 0.9))
    /// Always lossless JPEG XL (the same pixels come back), at cjxl's default effort (7).
    public static let jxl = FormatIndicatedCacheSerializer(imageFormat: .JXL, encoding: ImageEncodingOptions(compressionQuality: 1, lossless: true))

    /// Always JPEG at `compressionQuality` (0...1).
    public static func jpeg(compressionQuality: CGFloat) -> FormatIndicatedCacheSerializer {
        FormatIndicatedCacheSerializer(imageFormat: .JPEG, encoding: ImageEncodingOptions(compressionQuality: compressionQuality))
    }

    /// Always AVIF at `compressionQuality` (0...1) and encoder `speed`, 0 (slowest, smallest) to
    /// 10 (fastest), as `avifenc --speed` counts it.
    public static func avif(compressionQuality: CGFloat, speed: Int = 6) -> FormatIndicatedCacheSerializer {
        FormatIndicatedCacheSerializer(imageFormat: .AVIF, encoding: ImageEncodingOptions(compressionQuality: compressionQuality, avifSpeed: speed))
    }

    /// Always lossy JPEG XL at `compressionQuality` (0...1) and encoder `effort`, 1 (fastest) to 9
    /// (slowest, smallest), as `cjxl --effort` counts it.
    public static func jxl(compressionQuality: CGFloat, effort: Int = 7) -> FormatIndicatedCacheSerializer {
        FormatIndicatedCacheSerializer(imageFormat: .JXL, encoding: ImageEncodingOptions(compressionQuality: compressionQuality, jxlEffort: effort))
    }

    private let imageFormat: ImageFormat
    private let encoding: ImageEncodingOptions

    private init(imageFormat: ImageFormat, encoding: ImageEncodingOptions = ImageEncodingOptions(compressionQuality: 1)) {
        self.imageFormat = imageFormat
        self.encoding = encoding
    }

    /// The image encoded in this serializer's format; `nil` when the encoder failed.
    public func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        switch imageFormat {
        case .WebP:
            return image.kf.webpRepresentation(compressionQuality: encoding.compressionQuality, lossless: encoding.lossless)
        case .AVIF, .JXL:
            return try? image.encoded(as: imageFormat, options: encoding)
        case .PNG, .JPEG, .GIF, .HEIC, .unknown:
            return image.kf.data(format: imageFormat, compressionQuality: encoding.compressionQuality)
        }
    }

    /// Decodes `data` with the options' decoding settings; `nil` when it is not a readable image.
    public func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
    }
}
