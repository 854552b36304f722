import Foundation

extension KFCrossPlatformImage {
    /// Decodes PNG (APNG included), JPEG, GIF, WebP, AVIF, HEIC or JPEG XL data into an upright
    /// image, converted to sRGB when the file carries a colour profile (unless
    /// `options.keepsSourceColors`).
    ///
    /// Throws a ``KingfisherError`` (`.processorError`) naming the format and the failure when the data
    /// is empty, unrecognised, corrupt, truncated or over `options.limits`; no input traps.
    public init(data: Data, options: ImageCreatingOptions = ImageCreatingOptions()) throws {
        let format = data.kf.imageFormat
        if !options.preloadAllFrames, !options.onlyFirstFrame, format == .GIF || format == .WebP || format == .PNG,
           let header = try? ImageHeader(data: data), header.frameCount > 1 {
            var firstOnly = options
            firstOnly.onlyFirstFrame = true
            self = try ImageCodecs.decode(data, options: firstOnly)
            frameSource = CodecFrameSource(data: data, header: header, options: options)
            if frameSource != nil { lazyLoopCount = header.loopCount }
            animatedImageData = data
            return
        }
        let decoded = try ImageCodecs.decode(data, options: options)
        if options.duration > 0, decoded.isAnimated {
            self = decoded.spreading(options.duration)
            return
        }
        self = decoded
        if isAnimated || options.onlyFirstFrame, format == .GIF || format == .WebP {
            animatedImageData = data
        } else if format == .PNG, isAnimated || (options.onlyFirstFrame && (try? ImageHeader(data: data))?.frameCount ?? 1 > 1) {
            animatedImageData = data
        }
    }

    /// Encodes the image as `format`; GIF and WebP keep every frame of an animation.
    ///
    /// JPEG drops alpha (transparent areas come out black, as premultiplied pixels over black).
    /// PNG output is deterministic: the same pixels give the same bytes.
    public func encoded(as format: ImageFormat, options: ImageEncodingOptions = ImageEncodingOptions()) throws -> Data {
        try ImageCodecs.encode(self, as: format, options: options)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The size in points.
    public var size: CGSize { base.size }
    /// The scale: pixels per point.
    public var scale: CGFloat { base.scale }
    /// The pixel memory the image holds, in bytes, summed over its frames.
    public var cost: Int { base.cost }
    /// The frames as still images, or `nil` for a still image.
    public var images: [KFCrossPlatformImage]? { base.images }
    /// One pass of the animation, in seconds; 0 for a still image.
    public var duration: TimeInterval { base.duration }

    /// PNG bytes of the first frame, or `nil` if encoding failed.
    ///
    /// An image decoded from an APNG (even with only its first frame) gives back the original
    /// bytes, so every frame survives a trip through the disk cache.
    public func pngRepresentation() -> Data? {
        if let original = base.animatedImageData, original.kf.imageFormat == .PNG { return original }
        return try? base.encoded(as: .PNG)
    }

    /// JPEG bytes of the first frame at `compressionQuality` (0...1), or `nil` if encoding failed.
    public func jpegRepresentation(compressionQuality: CGFloat) -> Data? {
        try? base.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: compressionQuality))
    }

    /// The GIF, WebP, APNG, AVIF or JPEG XL bytes an animated image was decoded from, as Kingfisher keeps them; `nil`
    /// for stills and for images a processor made.
    public var animatedImageData: Data? { base.animatedImageData }

    /// GIF bytes with every frame, delay and the loop count, or `nil` if encoding failed.
    ///
    /// An image decoded from a GIF animation (even with only its first frame) gives back the
    /// original bytes, so every frame survives a trip through the disk cache.
    public func gifRepresentation() -> Data? {
        if let original = base.animatedImageData, original.kf.imageFormat == .GIF { return original }
        return try? base.encoded(as: .GIF)
    }

    /// WebP bytes with every frame, or `nil` if encoding failed.
    ///
    /// An image decoded from an animated WebP gives back the original bytes (the quality settings
    /// then do not apply).
    public func webpRepresentation(compressionQuality: CGFloat = 0.9, lossless: Bool = false) -> Data? {
        if let original = base.animatedImageData, original.kf.imageFormat == .WebP { return original }
        return try? base.encoded(as: .WebP, options: ImageEncodingOptions(compressionQuality: compressionQuality, lossless: lossless))
    }

    /// Decodes `data` into an image, or `nil` when it cannot; Kingfisher's spelling of
    /// ``KFCrossPlatformImage/init(data:options:)`` for callers that need no reason.
    public static func image(data: Data, options: ImageCreatingOptions) -> KFCrossPlatformImage? {
        try? KFCrossPlatformImage(data: data, options: options)
    }
}

extension KFCrossPlatformImage: KingfisherCompatibleValue {}
