import CLibJXL
import Foundation

/// One libjxl decoder over a whole JPEG XL file, driven event by event: the basic info, the colour
/// encoding, then one displayed frame at a time (libjxl composites the frames of an animation
/// and applies the codestream's orientation itself).
///
/// The whole input is given at once and closed, so a `JXL_DEC_NEED_MORE_INPUT` always means the
/// file is truncated. Not safe to share between threads: its owner serialises the calls.
final class JXLDecodeSession {
    /// What the basic info says, with the size as the pixels come out (upright).
    struct Info {
        var width: Int
        var height: Int
        var hasAlpha: Bool
        var isGray: Bool
        var isAnimated: Bool
        var loopCount: Int
        var ticksPerSecond: (numerator: UInt32, denominator: UInt32)
    }

    /// One displayed frame: its pixels (premultiplied RGBA8, sRGB), or `nil` when counting only.
    struct Frame {
        var pixels: [UInt8]?
        var duration: TimeInterval
        var isLast: Bool
    }

    private let lib: JXLLibrary
    private let decoder: JXLLibrary.Decoder
    private let input: UnsafeRawBufferPointer
    private let pool: JXLThreadPool?
    private let options: ImageCreatingOptions
    private let decodesPixels: Bool
    /// The basic info, once read.
    private(set) var info: Info?
    /// The colour space of the pixels libjxl hands out; `nil` when that is sRGB.
    private(set) var profile: EmbeddedColorProfile?
    /// The index of the displayed frame the next ``nextFrame()`` returns.
    private(set) var nextIndex = 0
    /// Whether the frame marked last has been met (after it, the end of the data is expected).
    private var sawLastFrame = false
    /// Whether the colour encoding has been read.
    private var colorRead = false
    /// Whether the image is stored in XYB (lossy VarDCT), so libjxl can hand it out in any space.
    private var usesXYB = false

    private static let pixelFormat = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8,
                                                    endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// A decoder over `input`, which must outlive the session.
    ///
    /// `decodesPixels` off subscribes to the headers only, so frames are skipped without being
    /// decoded (how frames are counted). `threaded` runs libjxl on a pool of one worker per
    /// hardware thread, as `djxl` does.
    init(input: UnsafeRawBufferPointer, options: ImageCreatingOptions, decodesPixels: Bool, threaded: Bool) throws {
        let lib: JXLLibrary
        switch JXLLibrary.shared {
        case .success(let library): lib = library
        case .failure(let error): throw JXLCodec.unavailableLibraryError(error)
        }
        guard let decoder = lib.decoderCreate(nil) else {
            throw JXLCodec.decodingError("libjxl could not create a decoder")
        }
        self.lib = lib
        self.decoder = decoder
        self.input = input
        self.options = options
        self.decodesPixels = decodesPixels
        pool = threaded ? JXLThreadPool.borrow() : nil
        if let pool {
            guard lib.decoderSetParallelRunner(decoder, pool.threads.runner, pool.runner) == JXL_DEC_SUCCESS else {
                throw JXLCodec.decodingError("libjxl refused the thread pool")
            }
        }
        guard subscribe(), lib.decoderSetKeepOrientation(decoder, 0) == JXL_DEC_SUCCESS,
              lib.decoderSetUnpremultiplyAlpha(decoder, 1) == JXL_DEC_SUCCESS
        else {
            throw JXLCodec.decodingError("libjxl refused the decoder settings")
        }
        try giveInput()
    }

    deinit {
        lib.decoderDestroy(decoder)
        pool?.giveBack()
    }

    /// Asks for the basic info and the frame headers, and when decoding pixels also for the colour
    /// encoding and the decoded frames.
    private func subscribe() -> Bool {
        var events = JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_FRAME.rawValue
        if decodesPixels { events |= JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FULL_IMAGE.rawValue }
        return lib.decoderSubscribeEvents(decoder, Int32(events)) == JXL_DEC_SUCCESS
    }

    /// Hands libjxl the whole input and closes it.
    private func giveInput() throws {
        let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard lib.decoderSetInput(decoder, base, input.count) == JXL_DEC_SUCCESS else {
            throw JXLCodec.decodingError("libjxl refused the input")
        }
        lib.decoderCloseInput(decoder)
    }

    /// Reads up to the basic info (and, when decoding pixels, the colour encoding).
    func readHeader() throws -> Info {
        while info == nil || (decodesPixels && !colorRead) {
            let status = try step()
            guard status == JXL_DEC_BASIC_INFO || status == JXL_DEC_COLOR_ENCODING else {
                throw JXLCodec.decodingError("the codestream has no image header")
            }
        }
        guard let info else { throw JXLCodec.decodingError("the codestream has no image header") }
        return info
    }

    /// The next displayed frame, or `nil` after the last one.
    func nextFrame() throws -> Frame? {
        while true {
            let status = try step()
            switch status {
            case JXL_DEC_SUCCESS:
                // libjxl 0.7 can report the end of closed input at a frame boundary as success.
                guard sawLastFrame else {
                    throw JXLCodec.decodingError("the data is truncated (it ends before the last frame)")
                }
                return nil
            case JXL_DEC_FRAME:
                var header = JxlFrameHeader()
                guard lib.decoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS, let info else {
                    throw JXLCodec.decodingError("the header of frame \(nextIndex + 1) could not be read")
                }
                let duration = Self.seconds(ticks: header.duration, info: info)
                let index = nextIndex
                nextIndex += 1
                if header.is_last != 0 { sawLastFrame = true }
                guard decodesPixels else { return Frame(pixels: nil, duration: duration, isLast: header.is_last != 0) }
                try checkLimits(frameCount: index + 1, info: info)
                let pixels = try decodePixels(index: index, info: info)
                return Frame(pixels: pixels, duration: duration, isLast: header.is_last != 0)
            case JXL_DEC_BASIC_INFO, JXL_DEC_COLOR_ENCODING:
                continue
            default:
                throw JXLCodec.decodingError("libjxl stopped with status \(status.rawValue) between frames")
            }
        }
    }

    /// Skips the next `count` displayed frames (libjxl still reads what later frames depend on).
    func skip(_ count: Int) {
        guard count > 0 else { return }
        lib.decoderSkipFrames(decoder, count)
        nextIndex += count
    }

    /// Starts again from the first frame, keeping what libjxl learnt about the frames.
    func rewind() throws {
        lib.decoderRewind(decoder)
        nextIndex = 0
        guard subscribe() else { throw JXLCodec.decodingError("libjxl refused the decoder settings") }
        try giveInput()
    }

    /// Runs libjxl to the next event, reading the basic info and the colour encoding on the way.
    private func step() throws -> JxlDecoderStatus {
        let status = lib.decoderProcessInput(decoder)
        switch status {
        case JXL_DEC_ERROR:
            let place = info == nil ? "the image header" : nextIndex == 0 ? "the colour encoding" : "frame \(nextIndex)"
            throw JXLCodec.decodingError("the data is corrupt or truncated (libjxl failed in \(place))")
        case JXL_DEC_NEED_MORE_INPUT:
            let place = info == nil ? "the image header" : nextIndex == 0 ? "the colour encoding" : "frame \(nextIndex)"
            throw JXLCodec.decodingError("the data is truncated (libjxl needs more input for \(place))")
        case JXL_DEC_BASIC_INFO:
            try readBasicInfo()
        case JXL_DEC_COLOR_ENCODING:
            readColorEncoding()
        default:
            break
        }
        return status
    }

    /// Reads the basic info (the size already upright) and checks the size against the limits
    /// before libjxl or Kingfisher allocates any pixel.
    private func readBasicInfo() throws {
        var basic = JxlBasicInfo()
        guard lib.decoderGetBasicInfo(decoder, &basic) == JXL_DEC_SUCCESS else {
            throw JXLCodec.decodingError("the image header could not be read")
        }
        let read = Info(width: Int(basic.xsize), height: Int(basic.ysize), hasAlpha: basic.alpha_bits > 0,
                        isGray: basic.num_color_channels == 1, isAnimated: basic.have_animation != 0,
                        loopCount: Int(basic.animation.num_loops),
                        ticksPerSecond: (basic.animation.tps_numerator, basic.animation.tps_denominator))
        try options.limits.checkFrame(width: read.width, height: read.height, format: .JXL)
        info = read
        usesXYB = basic.uses_original_profile == 0
    }

    /// Settles the colour space of the output: an XYB image is asked for sRGB (libjxl converts
    /// from XYB itself); any other is handed out in its own space, which ``profile`` then names
    /// unless it is sRGB.
    private func readColorEncoding() {
        colorRead = true
        profile = nil
        let gray = info?.isGray ?? false
        if usesXYB {
            var srgb = JxlColorEncoding()
            lib.colorEncodingSetToSRGB(&srgb, gray ? 1 : 0)
            _ = lib.decoderSetPreferredColorProfile(decoder, &srgb)
        }
        var encoding = JxlColorEncoding()
        if lib.decoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
           Self.isSRGB(encoding) {
            return
        }
        // A grey profile does not describe the RGBA libjxl hands out (grey copied to R, G and B).
        guard !gray else { return }
        var size = 0
        guard lib.decoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
              size > 0, size <= 1 << 26 else { return }
        var icc = [UInt8](repeating: 0, count: size)
        guard lib.decoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &icc, size) == JXL_DEC_SUCCESS
        else { return }
        profile = .icc(Data(icc))
    }

    /// True for sRGB (or grey with sRGB's white point and curve): nothing to convert.
    static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        guard encoding.white_point == JXL_WHITE_POINT_D65, encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB else {
            return false
        }
        return encoding.color_space == JXL_COLOR_SPACE_GRAY
            || (encoding.color_space == JXL_COLOR_SPACE_RGB && encoding.primaries == JXL_PRIMARIES_SRGB)
    }

    /// Checks the animation limits for `frameCount` frames before the last of them is allocated.
    private func checkLimits(frameCount: Int, info: Info) throws {
        guard frameCount > 1 else { return }
        try options.limits.checkAnimation(frameCount: frameCount, width: info.width, height: info.height, format: .JXL)
    }

    /// Lets libjxl decode the current frame into memory of ours, then brings it to sRGB and
    /// premultiplies it.
    private func decodePixels(index: Int, info: Info) throws -> [UInt8] {
        let count = info.width * info.height * 4
        var format = Self.pixelFormat
        return try PixelMemory.bytes(count: count) { buffer in
            var filled = false
            while !filled {
                let status = try step()
                switch status {
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    var needed = 0
                    guard lib.decoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == count,
                          lib.decoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, count) == JXL_DEC_SUCCESS
                    else {
                        throw JXLCodec.decodingError("libjxl wants an output buffer other than \(info.width)×\(info.height) RGBA")
                    }
                case JXL_DEC_FULL_IMAGE:
                    filled = true
                default:
                    throw JXLCodec.decodingError("frame \(index + 1) ended early (libjxl status \(status.rawValue))")
                }
            }
            let raw = UnsafeMutableRawBufferPointer(buffer)
            try ColorManagement.convertToSRGB(raw, width: info.width, height: info.height, from: profile, options: options)
            if info.hasAlpha { PixelConversion.premultiply(raw) }
        }
    }

    /// A frame's duration: `ticks` × `tps_denominator` / `tps_numerator` seconds, with
    /// Kingfisher's rule that 0.011 s or less shows for 0.1 s.
    static func seconds(ticks: UInt32, info: Info) -> TimeInterval {
        guard info.isAnimated, info.ticksPerSecond.numerator > 0 else { return 0 }
        let seconds = TimeInterval(ticks) * TimeInterval(info.ticksPerSecond.denominator)
            / TimeInterval(info.ticksPerSecond.numerator)
        return seconds > 0.011 ? seconds : GIFCodec.defaultFrameDuration
    }
}
