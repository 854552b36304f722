import CLibJXL
import Foundation

/// Writes JPEG XL with libjxl's `JxlEncoder`: 8-bit sRGB, alpha kept when the image has any,
/// one frame per animation frame.
///
/// - Lossy: the distance comes from `compressionQuality` × 100 by `cjxl`'s rule (so 0.9 encodes
///   as `cjxl -q 90`, distance 1.0); a quality of 100 is lossless, as in `cjxl`.
/// - Lossless (`options.lossless`): `JxlEncoderSetFrameLossless`, distance 0, original profile.
/// - Effort: `options.jxlEffort`, clamped to 1...9.
/// - Animation: ticks of a millisecond (1000 per second), each frame's duration rounded to whole
///   ticks, the image's loop count.
///
/// The encoder runs on a pool of one worker per hardware thread, as `cjxl` does by default.
enum JXLEncoder {
    /// Encodes every frame of `image`.
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        let lib: JXLLibrary
        switch JXLLibrary.shared {
        case .success(let library): lib = library
        case .failure(let error): throw JXLCodec.unavailableLibraryError(error, encoding: true)
        }
        guard let encoder = lib.encoderCreate(nil) else { throw JXLCodec.encodingError("libjxl could not create an encoder") }
        let pool = JXLThreadPool.borrow()
        // The encoder goes first: the runner is handed back only once nothing can call it.
        defer {
            lib.encoderDestroy(encoder)
            pool?.giveBack()
        }
        if let pool, lib.encoderSetParallelRunner(encoder, pool.threads.runner, pool.runner) != JXL_ENC_SUCCESS {
            throw JXLCodec.encodingError("libjxl refused the thread pool")
        }

        let lossless = options.lossless || distance(quality: options.compressionQuality) == 0
        let frames = image.frames
        let hasAlpha = !image.isOpaque
        try setHeader(lib, encoder, image: image, hasAlpha: hasAlpha, lossless: lossless)

        guard let settings = lib.encoderFrameSettingsCreate(encoder, nil) else {
            throw JXLCodec.encodingError("libjxl could not create frame settings")
        }
        let effort = Int64(options.jxlEffort.clamped(to: 1...9))
        guard lib.encoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort) == JXL_ENC_SUCCESS else {
            throw JXLCodec.encodingError("libjxl refused effort \(effort)")
        }
        let frameDistance = lossless ? 0 : distance(quality: options.compressionQuality)
        guard lib.encoderSetFrameLossless(settings, lossless ? 1 : 0) == JXL_ENC_SUCCESS,
              lib.encoderSetFrameDistance(settings, frameDistance) == JXL_ENC_SUCCESS else {
            throw JXLCodec.encodingError("libjxl refused distance \(frameDistance)")
        }

        var format = JxlPixelFormat(num_channels: hasAlpha ? 4 : 3, data_type: JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        for frame in frames {
            if frames.count > 1 {
                var header = JxlFrameHeader()
                lib.encoderInitFrameHeader(&header)
                header.duration = UInt32((frame.duration * 1000).rounded().clamped(to: 0...Double(UInt32.max)))
                guard lib.encoderSetFrameHeader(settings, &header) == JXL_ENC_SUCCESS else {
                    throw JXLCodec.encodingError("libjxl refused a frame header")
                }
            }
            let pixels = hasAlpha ? PixelConversion.unpremultiplied(frame.pixels) : rgb(frame.pixels)
            let status = pixels.withUnsafeBytes { lib.encoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
            guard status == JXL_ENC_SUCCESS else {
                throw JXLCodec.encodingError("libjxl refused a frame (error \(lib.encoderGetError(encoder).rawValue))")
            }
        }
        lib.encoderCloseInput(encoder)
        return try drain(lib, encoder, sizeHint: frames.count * image.pixelWidth * image.pixelHeight / 4)
    }

    /// The butteraugli distance `cjxl` 0.7 uses for `-q` of `compressionQuality` × 100: 0 at 100,
    /// `0.1 + (100 - q) × 0.09` from 30 up, `6.4 + 2.5^((30 - q) / 5) / 6.25` below.
    static func distance(quality compressionQuality: CGFloat) -> Float {
        let quality = Double(compressionQuality.isFinite ? compressionQuality.clamped(to: 0...1) : 0.9) * 100
        if quality >= 100 { return 0 }
        if quality >= 30 { return Float(0.1 + (100 - quality) * 0.09) }
        return Float(6.4 + pow(2.5, (30 - quality) / 5) / 6.25)
    }

    /// Sets the basic info (8-bit, sRGB, alpha when asked, animation when there are frames) and
    /// the colour encoding.
    private static func setHeader(_ lib: JXLLibrary, _ encoder: JXLLibrary.Encoder, image: KFCrossPlatformImage,
                                  hasAlpha: Bool, lossless: Bool) throws {
        var info = JxlBasicInfo()
        lib.encoderInitBasicInfo(&info)
        info.xsize = UInt32(image.pixelWidth)
        info.ysize = UInt32(image.pixelHeight)
        info.bits_per_sample = 8
        info.exponent_bits_per_sample = 0
        info.num_color_channels = 3
        info.uses_original_profile = lossless ? 1 : 0
        if hasAlpha {
            info.num_extra_channels = 1
            info.alpha_bits = 8
            info.alpha_exponent_bits = 0
            info.alpha_premultiplied = 0
        }
        if image.frames.count > 1 {
            info.have_animation = 1
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(image.loopCount.clamped(to: 0...Int(UInt32.max)))
        }
        guard lib.encoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS else {
            throw JXLCodec.encodingError("libjxl refused a \(image.pixelWidth)×\(image.pixelHeight) image "
                + "(error \(lib.encoderGetError(encoder).rawValue))")
        }
        var color = JxlColorEncoding()
        lib.colorEncodingSetToSRGB(&color, 0)
        guard lib.encoderSetColorEncoding(encoder, &color) == JXL_ENC_SUCCESS else {
            throw JXLCodec.encodingError("libjxl refused the sRGB colour encoding")
        }
    }

    /// Opaque RGBA8 as packed RGB8.
    private static func rgb(_ pixels: [UInt8]) -> [UInt8] {
        let count = pixels.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { target, initialized in
            pixels.withUnsafeBufferPointer { source in
                for index in 0..<count {
                    target[index * 3] = source[index * 4]
                    target[index * 3 + 1] = source[index * 4 + 1]
                    target[index * 3 + 2] = source[index * 4 + 2]
                }
            }
            initialized = count * 3
        }
    }

    /// Runs `JxlEncoderProcessOutput` into a buffer that doubles whenever libjxl asks for more.
    private static func drain(_ lib: JXLLibrary, _ encoder: JXLLibrary.Encoder, sizeHint: Int) throws -> Data {
        var output = [UInt8](repeating: 0, count: sizeHint.clamped(to: 4096...(64 << 20)))
        var written = 0
        while true {
            let (status, used) = output.withUnsafeMutableBufferPointer { buffer -> (JxlEncoderStatus, Int) in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = lib.encoderProcessOutput(encoder, &next, &available)
                return (status, buffer.count - written - available)
            }
            written += used
            switch status {
            case JXL_ENC_SUCCESS:
                return Data(output[0..<written])
            case JXL_ENC_NEED_MORE_OUTPUT:
                output.append(contentsOf: repeatElement(0, count: output.count))
            default:
                throw JXLCodec.encodingError("libjxl failed to encode (error \(lib.encoderGetError(encoder).rawValue))")
            }
        }
    }
}
