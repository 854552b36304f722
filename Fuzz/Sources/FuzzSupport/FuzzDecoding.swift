import Foundation
import Kingfisher

/// What every decoding target does with its input: probe the header, decode eagerly and lazily
/// under `limits`, walk the lazy frames forward and back, and check that what came out keeps the
/// promises the decoder makes. Errors are expected outcomes; only a trap, a sanitizer report or a
/// broken promise is a finding.
public enum FuzzDecoding {
    /// Limits small enough that a hostile header cannot make one run allocate much or take long.
    public static let tightLimits = ImageDecodingLimits(
        maxPixelsPerFrame: 1 << 18, maxFrameCount: 64, maxTotalAnimationPixels: 1 << 20)

    /// Runs `data` through the header probe and both decoding paths under `limits`.
    public static func exercise(_ data: Data, limits: ImageDecodingLimits = tightLimits) {
        let header = try? ImageHeader(data: data)
        if let header {
            FuzzCheck.that(header.pixelWidth >= 0 && header.pixelHeight >= 0, "header size is negative")
            FuzzCheck.that(header.frameCount >= 0, "header frame count is negative")
        }
        let eager = ImageCreatingOptions(limits: limits)
        if let image = try? KFCrossPlatformImage(data: data, options: eager) {
            checkWithinLimits(image, limits: limits)
        }
        let lazy = ImageCreatingOptions(limits: limits, preloadAllFrames: false)
        if let image = try? KFCrossPlatformImage(data: data, options: lazy) {
            checkWithinLimits(image, limits: limits)
            if let source = image.frameSource {
                let count = min(source.frameCount, 6)
                for index in 0..<count {
                    _ = source.duration(at: index)
                    if let frame = try? source.frame(at: index, maxSize: nil) {
                        checkFrame(frame, limits: limits)
                    }
                }
                // Going back starts over from the first frame; a small maxSize takes the scaled path.
                if let frame = try? source.frame(at: 0, maxSize: CGSize(width: 7, height: 5)) {
                    checkFrame(frame, limits: limits)
                }
            }
        }
    }

    /// Decodes with the first frame only, the path an animated view's placeholder takes.
    public static func exerciseFirstFrame(_ data: Data, limits: ImageDecodingLimits) {
        let options = ImageCreatingOptions(onlyFirstFrame: true, limits: limits)
        if let image = try? KFCrossPlatformImage(data: data, options: options) {
            FuzzCheck.that(image.frames.count == 1, "onlyFirstFrame gave \(image.frames.count) frames")
            checkWithinLimits(image, limits: limits)
        }
    }

    static func checkWithinLimits(_ image: KFCrossPlatformImage, limits: ImageDecodingLimits) {
        FuzzCheck.that(!image.frames.isEmpty, "a decoded image has no frames")
        FuzzCheck.that(image.frames.count <= limits.maxFrameCount, "more frames than the limit")
        var total = 0
        for frame in image.frames {
            checkFrame(frame, limits: limits)
            total += frame.width * frame.height
        }
        // The total is an animation's limit: a still, or the first frame of a lazy animation, is
        // bound by the per-frame limit alone.
        FuzzCheck.that(image.frames.count < 2 || total <= limits.maxTotalAnimationPixels,
                       "more animation pixels than the limit")
    }

    static func checkFrame(_ frame: ImageFrame, limits: ImageDecodingLimits) {
        FuzzCheck.that(frame.width > 0 && frame.height > 0, "an empty frame")
        FuzzCheck.that(frame.width * frame.height <= limits.maxPixelsPerFrame, "a frame over the pixel limit")
        FuzzCheck.that(frame.pixels.count == frame.width * frame.height * 4, "pixel buffer size mismatch")
    }
}
