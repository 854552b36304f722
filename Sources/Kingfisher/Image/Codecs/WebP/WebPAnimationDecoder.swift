import CLibWebP
import Foundation

// Animated WebP: `WebPAnimDecoder` for pixels, `WebPDemux` for the header.
extension WebPCodec {
    /// Decodes an animated WebP into one full-canvas frame per animation step.
    ///
    /// The canvas is checked against the frame limit before libwebp allocates it, and the frame count
    /// against the animation limits before any frame is decoded (with `onlyFirstFrame`, only the first
    /// frame is decoded, so only the frame limit applies). No decode-time scaling: `WebPAnimDecoder`
    /// has none, so animations always come back at their canvas size.
    static func decodeAnimation(_ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures,
                                options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        // `WebPAnimDecoderNew` allocates the canvas at once; the features carry the same canvas size.
        try options.limits.checkFrame(width: Int(features.width), height: Int(features.height), format: format)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw decodingError("there are no bytes to read")
        }

        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw decodingError("libwebp rejected the animation decoder options (version mismatch)")
        }
        // A profile that needs converting wants straight colour: convert, then premultiply each frame.
        let profile = WebPICC.profile(bytes)
        let converts = ColorManagement.needsConversion(profile, options: options)
        decoderOptions.color_mode = converts ? MODE_RGBA : MODE_rgbA
        decoderOptions.use_threads = 0

        var webpData = WebPData(bytes: base, size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&webpData, &decoderOptions) else {
            throw decodingError("the animation could not be parsed (truncated or corrupt chunks)")
        }
        defer { WebPAnimDecoderDelete(decoder) }

        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw decodingError("the animation header could not be read")
        }
        let width = Int(info.canvas_width)
        let height = Int(info.canvas_height)
        let declaredFrames = Int(info.frame_count)
        guard declaredFrames > 0 else {
            throw decodingError("the animation has no frames")
        }
        try options.limits.checkFrame(width: width, height: height, format: format)
        let frameCount = options.onlyFirstFrame ? 1 : declaredFrames
        if !options.onlyFirstFrame {
            try options.limits.checkAnimation(frameCount: frameCount, width: width, height: height, format: format)
        }

        let byteCount = width * height * 4
        let orientation = WebPEXIF.orientation(bytes)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        var previousTimestamp = 0
        for index in 0..<frameCount {
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw decodingError("frame \(index + 1) of \(declaredFrames) could not be decoded")
            }
            // The canvas is only valid until the next call: every frame gets its own copy.
            var pixels = [UInt8](UnsafeBufferPointer(start: canvas, count: byteCount))
            if converts {
                try WebPICC.convertStraight(&pixels, width: width, height: height, profile: profile, options: options)
            }
            let duration = frameDuration(milliseconds: Int(timestamp) - previousTimestamp)
            previousTimestamp = Int(timestamp)
            let frame = ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frameCount > 1 ? duration : 0)
            frames.append(orientation.apply(to: frame))
        }

        let opaque = frames.allSatisfy(\.allOpaque)
        let loopCount = frameCount > 1 ? Int(info.loop_count) : 0
        return KFCrossPlatformImage(validated: frames, loopCount: loopCount, scale: options.scale, isOpaque: opaque)
    }

    /// Kingfisher's rule for GIF, applied to WebP too: a delay of 11 ms or less shows for 100 ms.
    static func frameDuration(milliseconds: Int) -> TimeInterval {
        let seconds = TimeInterval(milliseconds) / 1000
        return seconds <= 0.011 ? 0.1 : seconds
    }

    /// The header of an animated WebP: canvas size, frame count and loop count from `WebPDemux`.
    ///
    /// The demuxer parses the chunk structure only; it needs the whole file, so a truncated animation
    /// is reported as an error rather than with a short frame count.
    static func probeAnimation(_ bytes: UnsafeRawBufferPointer, hasAlpha: Bool) throws -> ImageHeader {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw decodingError("there are no bytes to read")
        }
        var webpData = WebPData(bytes: base, size: bytes.count)
        guard let demuxer = WebPDemux(&webpData) else {
            throw decodingError("the animation's chunks could not be read (truncated or corrupt)")
        }
        defer { WebPDemuxDelete(demuxer) }
        let width = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH))
        let height = Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT))
        let frameCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
        let loopCount = Int(WebPDemuxGetI(demuxer, WEBP_FF_LOOP_COUNT))
        guard width > 0, height > 0, frameCount > 0 else {
            throw decodingError("the animation header gives \(frameCount) frames of \(width)×\(height) pixels")
        }
        var header = ImageHeader(format: format, pixelWidth: width, pixelHeight: height, frameCount: frameCount,
                                 loopCount: frameCount > 1 ? loopCount : 0, hasAlpha: hasAlpha)
        if frameCount > 1 {
            var iterator = WebPIterator()
            if WebPDemuxGetFrame(demuxer, 1, &iterator) != 0 {
                repeat {
                    header.frameDurations.append(frameDuration(milliseconds: Int(iterator.duration)))
                } while WebPDemuxNextFrame(&iterator) != 0
                WebPDemuxReleaseIterator(&iterator)
            }
        }
        return header
    }
}
