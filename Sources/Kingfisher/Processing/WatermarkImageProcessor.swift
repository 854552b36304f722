import Foundation

/// Draws a watermark image over images: at a position on each axis (or repeated), scaled relative
/// to the image, at an opacity.
///
/// The watermark's first frame is drawn source-over on every frame of the image; its alpha is
/// multiplied by ``opacity``. It is resized first (Lanczos) when ``scale`` asks, and parts that
/// fall outside the image are cut off. The identifier names a digest of the watermark's pixels,
/// so two watermarks that differ give different cache keys.
public struct WatermarkImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.WatermarkImageProcessor(<digest>_<opacity>_<x>_<y>_<scale>)`.
    public let identifier: String
    /// The image drawn over others (its first frame).
    public let watermark: KFCrossPlatformImage
    /// How opaque the watermark is drawn, 0 (not at all) to 1 (as it is).
    public let opacity: CGFloat
    /// Where the copies go across the image.
    public let x: WatermarkAxis
    /// Where the copies go down the image.
    public let y: WatermarkAxis
    /// How big the watermark is drawn.
    public let scale: WatermarkScale

    /// A processor drawing `watermark` at `opacity` (clamped to 0...1), placed by `x` and `y`
    /// (by default in the bottom-right corner), sized by `scale` (by default its own size).
    public init(watermark: KFCrossPlatformImage, opacity: CGFloat = 1, x: WatermarkAxis = .end(.pixels(0)),
                y: WatermarkAxis = .end(.pixels(0)), scale: WatermarkScale = .original) {
        self.watermark = watermark.firstFrameOnly()
        self.opacity = opacity.isNaN ? 1 : min(max(opacity, 0), 1)
        self.x = x
        self.y = y
        self.scale = scale
        let digest = String(Self.digest(of: watermark.firstFrame), radix: 16)
        identifier = "com.onevcat.Kingfisher.WatermarkImageProcessor(\(digest)_\(self.opacity)_\(x)_\(y)_\(scale))"
    }

    /// The item at `options.scaleFactor` with the watermark drawn on it; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.watermarked(with: watermark, opacity: opacity, x: x, y: y, scale: scale)
    }

    /// FNV-1a (64 bits) of the frame's size and pixels.
    static func digest(of frame: ImageFrame) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        for side in [frame.width, frame.height] {
            for shift in stride(from: 0, to: 32, by: 8) { mix(UInt8(truncatingIfNeeded: side >> shift)) }
        }
        frame.pixels.withUnsafeBufferPointer { bytes in
            for byte in bytes { mix(byte) }
        }
        return hash
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image with `watermark` (its first frame) drawn over every frame, placed by `x` and `y`,
    /// sized by `scale`, its alpha multiplied by `opacity` (clamped to 0...1). Same size and scale.
    ///
    /// A scale that would make the watermark more than 16 times the image's pixels (and over a
    /// megapixel) leaves the image unchanged rather than resample that much.
    public func watermarked(with watermark: KFCrossPlatformImage, opacity: CGFloat = 1, x: WatermarkAxis,
                            y: WatermarkAxis, scale: WatermarkScale = .original) -> KFCrossPlatformImage {
        let strength = FilterInput.unitValue(opacity, ifNaN: 1)
        guard strength > 0 else { return base }
        let width = base.pixelWidth, height = base.pixelHeight
        let size = scale.size(markWidth: watermark.pixelWidth, markHeight: watermark.pixelHeight,
                              imageWidth: width, imageHeight: height)
        // A ratio can ask for any size: refuse one of more than 16 times the image's pixels (at
        // least a megapixel), which could only cover the image with a small part of it.
        let markPixels = Int64(size.width) * Int64(size.height)
        guard markPixels <= max(Int64(width) * Int64(height) * 16, 1 << 20) else { return base }
        var mark = watermark.firstFrame
        if size.width != mark.width || size.height != mark.height {
            mark = watermark.firstFrameOnly().resampled(toPixelWidth: size.width, height: size.height).firstFrame
        }
        let capped = x.isSpread && y.isSpread && {
            let across = WatermarkAxis.spreadCount(length: width, mark: mark.width).count
            let down = WatermarkAxis.spreadCount(length: height, mark: mark.height).count
            return across.multipliedReportingOverflow(by: down).partialValue > 100
        }()
        let columns = x.positions(length: width, mark: mark.width, capSpread: capped)
        let rows = y.positions(length: height, mark: mark.height, capSpread: capped)
        let origins = rows.flatMap { top in columns.map { (x: $0, y: top) } }
        let frames = base.frames.map { FrameOverlay.draw(mark, over: $0, at: origins, opacity: strength) }
        let opaque = base.isOpaque
        return KFCrossPlatformImage(validated: frames, loopCount: base.loopCount, scale: base.scale, isOpaque: opaque)
    }
}
