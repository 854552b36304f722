import Foundation

/// Animated PNG, on top of ``PNGCodec``: the chunk structure comes from ``PNGStructure``, each
/// frame is decoded by libpng as a standalone PNG (``APNGFrameStream``) and composited on an
/// ``APNGCanvas``.
///
/// Behaviour, following browsers and ImageIO:
/// - The frames are those the fcTL chunks describe. When an fcTL comes before the IDAT, the IDAT
///   image is the first frame; otherwise the IDAT image is only what viewers without APNG support
///   show, and it is not decoded at all.
/// - A delay of `delay_num / delay_den` seconds (`delay_den` 0 meaning 100); a delay of 0.011 s or
///   less shows for 0.1 s, as for GIF.
/// - The loop count is `num_plays` (0 means forever).
/// - The first frame's fcTL may come before the acTL.
/// - A broken animation (sequence numbers out of order, a second acTL, a frame outside the canvas,
///   a missing or truncated fdAT, a bad CRC on an animation chunk, fewer or more frames than
///   announced, a frame whose data does not inflate to exactly its rows) is set aside and the IDAT
///   image decoded as a still, as browsers do and the PNG specification asks. Frames decoded
///   lazily are checked only when asked for: a broken one found then is a `KingfisherError`.
enum APNGCodec {
    /// Where a lazy decode stopped, to go on from there: the chunk structure, the index of the
    /// next frame and the canvas as the frame before it left it.
    struct ResumePoint: Sendable {
        let structure: PNGStructure
        let nextIndex: Int
        let canvas: APNGCanvas
    }

    static func malformed(_ description: String) -> KingfisherError {
        PNGCodec.decodingError("the APNG is malformed: \(description)")
    }

    /// An fcTL delay in seconds, with the GIF rule for delays of 0.011 s or less.
    static func frameDuration(numerator: Int, denominator: Int) -> TimeInterval {
        let seconds = TimeInterval(numerator) / TimeInterval(denominator == 0 ? 100 : denominator)
        return seconds > 0.011 ? seconds : GIFCodec.defaultFrameDuration
    }

    /// `base` (what libpng read from IHDR) with the animation's frame count, loop count, durations
    /// and the orientation filled in.
    static func header(_ base: ImageHeader, structure: PNGStructure) -> ImageHeader {
        var header = base
        header.orientation = structure.orientation
        guard let animation = structure.animation else { return header }
        let frames = animation.frames
        header.frameCount = frames.count
        header.hasAlpha = base.hasAlpha || frames.contains {
            $0.width != structure.width || $0.height != structure.height || $0.dispose == .background
        }
        if frames.count > 1 {
            header.loopCount = animation.playCount
            header.frameDurations = frames.map(\.duration)
        }
        return header
    }

    /// Decodes every frame of `animation` (only the first with `onlyFirstFrame`), upright.
    static func decode(_ data: Data, structure: PNGStructure, animation: APNGAnimation,
                       options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        try options.limits.checkFrame(width: structure.width, height: structure.height, format: .PNG)
        let count = options.onlyFirstFrame ? 1 : animation.frames.count
        if count > 1 {
            try options.limits.checkAnimation(frameCount: count, width: structure.width, height: structure.height, format: .PNG)
        }
        var canvas = APNGCanvas(width: structure.width, height: structure.height)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            do {
                frames.append(try render(index, of: data, structure: structure, on: &canvas, options: options))
            } catch let failure as APNGFrameFailure {
                return try PNGCodec.decodeStill(data, structure: structure.settingAsideAnimation(because: failure.description),
                                                options: options)
            }
        }
        if frames.count == 1 {
            return KFCrossPlatformImage(frame: frames[0], scale: options.scale)
        }
        return KFCrossPlatformImage(validated: frames, loopCount: animation.playCount, scale: options.scale,
                                    isOpaque: frames.allSatisfy(\.allOpaque))
    }

    /// Frame `index`, composited from `resume` when that is at or before the frame (else from the
    /// start), with the point to resume from after it.
    static func frame(at index: Int, of data: Data, from resume: ResumePoint?,
                      options: ImageCreatingOptions) throws -> (ImageFrame, ResumePoint) {
        let structure = resume?.structure ?? PNGStructure(data)
        guard let animation = structure.animation, animation.frames.indices.contains(index) else {
            throw PNGCodec.decodingError("frame \(index + 1) was asked for; the image has \(structure.animation?.frames.count ?? 1)")
        }
        var canvas: APNGCanvas
        var next: Int
        if let resume, resume.nextIndex <= index {
            canvas = resume.canvas
            next = resume.nextIndex
        } else {
            try options.limits.checkFrame(width: structure.width, height: structure.height, format: .PNG)
            canvas = APNGCanvas(width: structure.width, height: structure.height)
            next = 0
        }
        while true {
            let frame: ImageFrame
            do {
                frame = try render(next, of: data, structure: structure, on: &canvas, options: options)
            } catch let failure as APNGFrameFailure {
                throw malformed(failure.description)
            }
            next += 1
            if next > index {
                return (frame, ResumePoint(structure: structure, nextIndex: next, canvas: canvas))
            }
        }
    }

    /// Decodes frame `index` and draws it on `canvas`; the canvas after it, upright.
    ///
    /// Throws ``APNGFrameFailure`` when the frame's own data is broken, any other error (limits,
    /// memory) as it comes.
    private static func render(_ index: Int, of data: Data, structure: PNGStructure, on canvas: inout APNGCanvas,
                               options: ImageCreatingOptions) throws -> ImageFrame {
        guard let info = structure.animation?.frames[index] else {
            throw PNGCodec.decodingError("the image has no frame \(index + 1)")
        }
        let stream = data.withUnsafeBytes { APNGFrameStream.build(info, of: structure, in: $0) }
        let pixels: ImageFrame
        do {
            pixels = try PNGCodec.decodePixels(stream, options: options, refusesExtraData: true).frame
        } catch let error as KingfisherError {
            if case .processorError(reason: .decodingFailed(_, let description)) = error {
                throw APNGFrameFailure(description: "frame \(index + 1) could not be decoded: \(description)")
            }
            throw error
        }
        guard pixels.width == info.width, pixels.height == info.height else {
            throw APNGFrameFailure(description: "frame \(index + 1) decoded to \(pixels.width)×\(pixels.height) pixels instead of \(info.width)×\(info.height)")
        }
        canvas.draw(info, source: pixels)
        return structure.orientation.apply(to: canvas.snapshot(duration: info.duration))
    }
}

/// A frame whose own data is broken: the animation is set aside for the IDAT image.
struct APNGFrameFailure: Error, CustomStringConvertible {
    let description: String
}
