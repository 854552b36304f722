import CLibAVIF
import Foundation

// AVIF encoding with `avifEncoder`: a still image, or a sequence when the image has several frames.
extension AVIFCodec {
    /// The timescale of an encoded sequence: durations are whole milliseconds.
    static let timescale: UInt64 = 1000

    /// Encodes `image` as 8-bit YUV 4:2:0 AVIF with libavif's default AV1 encoder (libaom).
    ///
    /// 4:2:0 halves the chroma resolution, as JPEG and web encoders do; `avifenc` 0.11 picks it
    /// for 4:2:0 JPEG input but 4:4:4 for PNG input (`-y auto`), so compare with `avifenc -y 420`.
    ///
    /// - Quality: `compressionQuality` q (0...1) becomes one AV1 quantizer, `round((1 - q) × 63)`,
    ///   used as both the minimum and the maximum for colour and for alpha, which makes libaom
    ///   encode at that constant quantizer. It is the mapping libavif 1.0 gives its `quality` field
    ///   (0...100) and `avifenc -q`, so 0.9 writes what `avifenc --min 6 --max 6` writes; 1.0 is
    ///   quantizer 0, near-lossless (lossless AV1, but 4:2:0 still halves the chroma resolution).
    /// - Speed: `options.avifSpeed`, clamped to 0...10, as `avifenc --speed` counts it.
    /// - One encoder thread, as `avifenc` uses by default.
    /// - Alpha is encoded only when some pixel is not opaque; colour is stored straight (the
    ///   premultiplied frames are unpremultiplied first), tagged sRGB (CICP 1/13/6, full range).
    /// - Several frames make a sequence with a timescale of 1,000, each frame lasting its duration
    ///   in whole milliseconds (at least 1; a frame without one lasts 100 ms).
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        let library = try library(encoding: true)
        guard let encoder = library.encoderCreate() else {
            throw encodingError("libavif could not create an encoder (out of memory)")
        }
        defer { library.encoderDestroy(encoder) }
        let quantizer = Int32(quantizer(for: options.compressionQuality))
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(options.avifSpeed.clamped(to: 0...10))
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        encoder.pointee.timescale = timescale

        let frames = image.frames
        let flags = frames.count > 1 ? AVIF_ADD_IMAGE_FLAG_NONE : AVIF_ADD_IMAGE_FLAG_SINGLE
        for (index, frame) in frames.enumerated() {
            try addFrame(frame, hasAlpha: !image.isOpaque, flags: avifAddImageFlags(flags.rawValue),
                         to: encoder, library: library, description: "frame \(index + 1) of \(frames.count)")
        }
        var output = avifRWData()
        defer { library.rwDataFree(&output) }
        let status = library.encoderFinish(encoder, &output)
        guard status == AVIF_RESULT_OK, let bytes = output.data, output.size > 0 else {
            throw encodingError("libavif could not finish the file (\(library.describe(status)))")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// The AV1 quantizer (0 best ... 63 worst) for a quality of 0...1; a non-finite quality counts as 0.9.
    static func quantizer(for quality: CGFloat) -> Int {
        let clamped = quality.isFinite ? min(max(quality, 0), 1) : 0.9
        return Int(((1 - clamped) * 63).rounded())
    }

    /// Converts `frame` to YUV 4:2:0 and hands it to `encoder`.
    private static func addFrame(_ frame: ImageFrame, hasAlpha: Bool, flags: avifAddImageFlags,
                                 to encoder: AVIFLibrary.Encoder, library: AVIFLibrary, description: String) throws {
        guard let width = UInt32(exactly: frame.width), let height = UInt32(exactly: frame.height),
              let yuv = library.imageCreate(width, height, 8, AVIF_PIXEL_FORMAT_YUV420)
        else {
            throw encodingError("libavif could not make a \(frame.width)×\(frame.height) image")
        }
        defer { library.imageDestroy(yuv) }
        yuv.pointee.yuvRange = AVIF_RANGE_FULL
        yuv.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        yuv.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        yuv.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_BT601)

        var straight = hasAlpha ? PixelConversion.unpremultiplied(frame.pixels) : frame.pixels
        var rgb = avifRGBImage()
        library.rgbImageSetDefaults(&rgb, yuv)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.ignoreAlpha = hasAlpha ? 0 : 1
        rgb.rowBytes = width * 4
        let converted = straight.withUnsafeMutableBufferPointer { pixels in
            rgb.pixels = pixels.baseAddress
            return library.imageRGBToYUV(yuv, &rgb)
        }
        guard converted == AVIF_RESULT_OK else {
            throw encodingError("\(description) could not be converted to YUV (\(library.describe(converted)))")
        }
        let milliseconds = frame.duration > 0 ? max(1, (frame.duration * 1000).rounded()) : 100
        let duration = UInt64(min(milliseconds, Double(UInt32.max)))
        let added = library.encoderAddImage(encoder, yuv, duration, flags)
        guard added == AVIF_RESULT_OK else {
            throw encodingError("\(description) could not be encoded (\(library.describe(added)))")
        }
    }
}
