import Foundation

/// How large an image the decoders accept, checked from the header before any pixel memory is taken.
///
/// The defaults suit a server that decodes what strangers upload: 50 megapixels per frame (200 MB of
/// RGBA), 2,000 frames and 250 megapixels over a whole animation (1 GB). Raise them for trusted input.
public struct ImageDecodingLimits: Sendable, Hashable {
    /// Most pixels one frame may have.
    public var maxPixelsPerFrame: Int
    /// Most frames an animation may have.
    public var maxFrameCount: Int
    /// Most pixels all frames of an animation may have together.
    public var maxTotalAnimationPixels: Int

    /// Makes limits; values below 1 are taken as 1.
    public init(maxPixelsPerFrame: Int = 50_000_000, maxFrameCount: Int = 2_000, maxTotalAnimationPixels: Int = 250_000_000) {
        self.maxPixelsPerFrame = max(1, maxPixelsPerFrame)
        self.maxFrameCount = max(1, maxFrameCount)
        self.maxTotalAnimationPixels = max(1, maxTotalAnimationPixels)
    }

    /// 50 MP per frame, 2,000 frames, 250 MP per animation.
    public static let `default` = ImageDecodingLimits()

    /// Throws unless a `width`×`height` frame is within `maxPixelsPerFrame`.
    func checkFrame(width: Int, height: Int, format: ImageFormat) throws {
        guard width > 0, height > 0 else {
            throw KingfisherError.processorError(reason: .decodingFailed(format: format, description: "the image is \(width)×\(height) pixels"))
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixelsPerFrame {
            throw KingfisherError.processorError(reason: .imageLimitExceeded(
                format: format, violation: .pixelsPerFrame(width: width, height: height, limit: maxPixelsPerFrame)))
        }
    }

    /// Throws unless `frameCount` frames of `width`×`height` are within the animation limits.
    func checkAnimation(frameCount: Int, width: Int, height: Int, format: ImageFormat) throws {
        if frameCount > maxFrameCount {
            throw KingfisherError.processorError(reason: .imageLimitExceeded(
                format: format, violation: .frameCount(count: frameCount, limit: maxFrameCount)))
        }
        let (perFrame, overflow1) = width.multipliedReportingOverflow(by: height)
        let (total, overflow2) = perFrame.multipliedReportingOverflow(by: frameCount)
        if overflow1 || overflow2 || total > maxTotalAnimationPixels {
            throw KingfisherError.processorError(reason: .imageLimitExceeded(
                format: format, violation: .totalAnimationPixels(pixels: overflow1 || overflow2 ? Int.max : total, limit: maxTotalAnimationPixels)))
        }
    }
}
