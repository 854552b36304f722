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
    /// How the pixels libjxl hands out reach sRGB.
    private(set) var outputColor = JXLOutputColor.sRGB
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

    /// Settles how the output reaches sRGB (see ``JXLOutputColor``).
    private func readColorEncoding() {
        colorRead = true
        outputColor = JXLOutputColor.settle(lib, decoder, usesXYB: usesXYB, isGray: info?.isGray ?? false,
                                            options: options)
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
        let pixelCount = info.width * info.height
        return try PixelMemory.bytes(count: count) { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            switch outputColor {
            case .toneMapped(let toneMapping):
                var wide = [UInt16](repeating: 0, count: count)
                try wide.withUnsafeMutableBytes { try fill($0, index: index, info: info, format: Self.widePixelFormat) }
                wide.withUnsafeBufferPointer { toneMapping.convert($0, into: raw, pixelCount: pixelCount) }
            case .cmyk(let icc, let black):
                var ink = [UInt8](repeating: 255, count: pixelCount)
                try ink.withUnsafeMutableBytes { ink in
                    try fill(raw, index: index, info: info, format: Self.pixelFormat, black: (ink, black))
                }
                Self.convertCMYK(raw, black: &ink, icc: icc, options: options)
            case .profile(let profile):
                try fill(raw, index: index, info: info, format: Self.pixelFormat)
                try ColorManagement.convertToSRGB(raw, width: info.width, height: info.height, from: profile, options: options)
            case .sRGB:
                try fill(raw, index: index, info: info, format: Self.pixelFormat)
            }
            if info.hasAlpha { PixelConversion.premultiply(raw) }
        }
    }

    /// CMY and alpha in `pixels` with K in `black` (JPEG XL's 1.0-for-no-ink values) to straight
    /// sRGB RGBA through the CMYK profile `icc`; `black` holds the alpha meanwhile.
    private static func convertCMYK(_ pixels: UnsafeMutableRawBufferPointer, black: inout [UInt8], icc: Data,
                                    options: ImageCreatingOptions) {
        let count = black.count
        for index in 0..<count {
            swap(&pixels[index * 4 + 3], &black[index])
        }
        ColorManagement.convertCMYKToSRGB(pixels, pixelCount: count, inverted: true, profile: icc, options: options)
        for index in 0..<count {
            pixels[index * 4 + 3] = black[index]
        }
    }

    /// The pixel format of a CMYK image's black channel: one byte a pixel.
    private static let blackPixelFormat = JxlPixelFormat(num_channels: 1, data_type: JXL_TYPE_UINT8,
                                                         endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// The pixel format of PQ and HLG output: 16-bit RGBA.
    private static let widePixelFormat = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT16,
                                                        endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// Runs libjxl until it has written the current frame into `buffer` in `format`, and extra
    /// channel `black.index` into `black.buffer` (one byte a pixel) when given.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer, index: Int, info: Info, format: JxlPixelFormat,
                      black: (buffer: UnsafeMutableRawBufferPointer, index: UInt32)? = nil) throws {
        var format = format
        var filled = false
        while !filled {
            let status = try step()
            switch status {
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var needed = 0
                guard lib.decoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == buffer.count,
                      lib.decoderSetImageOutBuffer(decoder, &format, buffer.baseAddress, buffer.count) == JXL_DEC_SUCCESS
                else {
                    throw JXLCodec.decodingError("libjxl wants an output buffer other than \(info.width)×\(info.height) RGBA")
                }
                if let black {
                    var channel = Self.blackPixelFormat
                    guard lib.decoderExtraChannelBufferSize(decoder, &channel, &needed, black.index) == JXL_DEC_SUCCESS,
                          needed == black.buffer.count,
                          lib.decoderSetExtraChannelBuffer(decoder, &channel, black.buffer.baseAddress, needed,
                                                           black.index) == JXL_DEC_SUCCESS
                    else {
                        throw JXLCodec.decodingError("libjxl refused a buffer for the black channel")
                    }
                }
            case JXL_DEC_FULL_IMAGE:
                filled = true
            default:
                throw JXLCodec.decodingError("frame \(index + 1) ended early (libjxl status \(status.rawValue))")
            }
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
