import CLibWebP
import Foundation

// WebP encoding: `WebPEncode` for a still image, `WebPAnimEncoder` for an animation.
extension WebPCodec {
    /// The longest frame the encoder writes, in milliseconds: WebP stores durations in 24 bits.
    private static let maxFrameMilliseconds = 0xFF_FFFF

    /// Encodes one frame as a still WebP.
    static func encodeStill(_ frame: ImageFrame, isOpaque: Bool, options: ImageEncodingOptions) throws -> Data {
        var config = try makeConfig(options)

        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw encodingError("libwebp rejected the picture (version mismatch)")
        }
        defer { WebPPictureFree(&picture) }
        // Lossy stills import straight to YUV, as cwebp does; lossless needs ARGB.
        try importPixels(of: frame, isOpaque: isOpaque, asARGB: options.lossless, into: &picture)

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }

        return try withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            let succeeded = WebPEncode(&config, &picture) != 0
            picture.writer = nil
            picture.custom_ptr = nil
            guard succeeded else {
                throw encodingError(describe(picture.error_code))
            }
            guard let bytes = writerPointer.pointee.mem, writerPointer.pointee.size > 0 else {
                throw encodingError("libwebp wrote no bytes")
            }
            return Data(bytes: bytes, count: writerPointer.pointee.size)
        }
    }

    /// Encodes every frame as an animated WebP, with the frames' durations and the loop count.
    ///
    /// A frame without a duration (0) is written with 100 ms, which is how decoders show it anyway.
    static func encodeAnimation(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        var config = try makeConfig(options)
        let width = image.pixelWidth
        let height = image.pixelHeight

        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw encodingError("libwebp rejected the animation encoder options (version mismatch)")
        }
        // WebP stores the loop count in 16 bits.
        encoderOptions.anim_params.loop_count = Int32(image.loopCount.clamped(to: 0...0xFFFF))
        guard let encoder = WebPAnimEncoderNew(Int32(clamping: width), Int32(clamping: height), &encoderOptions) else {
            throw encodingError("libwebp could not start an animation of \(width)×\(height) pixels")
        }
        defer { WebPAnimEncoderDelete(encoder) }

        var timestamp = 0
        for (index, frame) in image.frames.enumerated() {
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else {
                throw encodingError("libwebp rejected the picture (version mismatch)")
            }
            defer { WebPPictureFree(&picture) }
            try importPixels(of: frame, isOpaque: image.isOpaque, asARGB: true, into: &picture)
            guard let start = Int32(exactly: timestamp) else {
                throw encodingError("the animation is longer than WebP's timestamps can count")
            }
            guard WebPAnimEncoderAdd(encoder, &picture, start, &config) != 0 else {
                throw encodingError("frame \(index + 1) was refused: \(animationError(encoder, picture: picture))")
            }
            timestamp += milliseconds(of: frame)
        }
        guard let end = Int32(exactly: timestamp) else {
            throw encodingError("the animation is longer than WebP's timestamps can count")
        }
        guard WebPAnimEncoderAdd(encoder, nil, end, nil) != 0 else {
            throw encodingError("the animation could not be finished: \(animationError(encoder, picture: nil))")
        }

        var output = WebPData()
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes, output.size > 0 else {
            throw encodingError("the animation could not be assembled: \(animationError(encoder, picture: nil))")
        }
        return Data(bytes: bytes, count: output.size)
    }

    // MARK: - Helpers

    /// The encoder configuration for `options`: quality, lossless or lossy, method 4 (cwebp's default).
    private static func makeConfig(_ options: ImageEncodingOptions) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw encodingError("libwebp rejected the encoder configuration (version mismatch)")
        }
        config.quality = Float(options.qualityPercent)
        config.lossless = options.lossless ? 1 : 0
        config.method = 4
        config.thread_level = 0
        guard WebPValidateConfig(&config) != 0 else {
            throw encodingError("libwebp rejected the encoder configuration")
        }
        return config
    }

    /// Fills `picture` with the frame's pixels, straight alpha (RGBX when the image is opaque), kept
    /// as ARGB when `asARGB` (lossless and animations) or converted to YUV while importing.
    private static func importPixels(of frame: ImageFrame, isOpaque: Bool, asARGB: Bool, into picture: inout WebPPicture) throws {
        guard frame.width <= Int(WEBP_MAX_DIMENSION), frame.height <= Int(WEBP_MAX_DIMENSION) else {
            throw encodingError("\(frame.width)×\(frame.height) is larger than WebP's \(WEBP_MAX_DIMENSION) pixels a side")
        }
        picture.use_argb = asARGB ? 1 : 0
        picture.width = Int32(frame.width)
        picture.height = Int32(frame.height)
        let stride = Int32(frame.bytesPerRow)
        let imported: Int32
        if isOpaque {
            // Alpha is 255 everywhere, so premultiplied colour is straight colour; RGBX ignores alpha.
            imported = frame.pixels.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return WebPPictureImportRGBX(&picture, base, stride)
            }
        } else {
            let straight = PixelConversion.unpremultiplied(frame.pixels)
            imported = straight.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return 0 }
                return WebPPictureImportRGBA(&picture, base, stride)
            }
        }
        guard imported != 0 else {
            throw encodingError("the pixels could not be imported: \(describe(picture.error_code))")
        }
    }

    /// The frame's duration in whole milliseconds; 100 ms when it has none.
    private static func milliseconds(of frame: ImageFrame) -> Int {
        guard frame.duration > 0 else { return 100 }
        let value = (frame.duration * 1000).rounded()
        guard value.isFinite else { return maxFrameMilliseconds }
        return max(1, Int(min(value, Double(maxFrameMilliseconds))))
    }

    /// The animation encoder's last error message, or the picture's error code when it gave none.
    private static func animationError(_ encoder: OpaquePointer, picture: WebPPicture?) -> String {
        if let message = WebPAnimEncoderGetError(encoder), message.pointee != 0 {
            return String(cString: message)
        }
        return picture.map { describe($0.error_code) } ?? "unknown error"
    }

    /// A readable reason for a libwebp encoding error code.
    static func describe(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_OK: return "no error"
        case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory while writing the bitstream"
        case VP8_ENC_ERROR_NULL_PARAMETER: return "a required parameter was missing"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: return "invalid configuration"
        case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimensions"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "partition 0 is over 512 KB (try a lower quality)"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition is over 16 MB"
        case VP8_ENC_ERROR_BAD_WRITE: return "the output could not be written"
        case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would be over 4 GB"
        case VP8_ENC_ERROR_USER_ABORT: return "encoding aborted"
        default: return "libwebp error \(error.rawValue)"
        }
    }
}
