import CLibPNG
import Foundation

/// PNG decoding and encoding: the common still PNG through libdeflate (``PNGDeflateDecoder``,
/// ``PNGDeflateEncoder``), everything else through libpng 1.6's simplified API, which reports every
/// failure by return code (no `setjmp` crosses Swift).
///
/// Every colour type, bit depth and interlace method decodes to 8-bit premultiplied RGBA in sRGB.
/// libpng converts: palettes and `tRNS` expand to RGBA, low bit depths scale up, 16-bit samples
/// scale down rounding to nearest, and a `gAMA` that is not sRGB's is converted to sRGB. 16-bit
/// files without gamma information are taken as sRGB-encoded (libpng would assume linear).
/// 16-bit Adam7 files go through 16-bit linear light instead (see `finishReadThroughLinear`) and
/// come out within 1 of that. An `iCCP` profile then converts the straight pixels to sRGB before they
/// are premultiplied (see ``ColorManagement``), in every frame of an APNG too. The encoder writes the first frame as 8-bit RGB when the image is
/// opaque, else as 8-bit RGBA, through ``PNGDeflateEncoder``.
///
/// An APNG (an `acTL` chunk before the first IDAT) decodes through ``APNGCodec``; an `eXIf`
/// orientation, which libpng does not apply, is applied here once to every frame, and ``probe(_:)``
/// reports it (see ``PNGStructure``).
enum PNGCodec: ImageCodec {
    static let format = ImageFormat.PNG

    /// The IHDR as libpng reads it, with the frame and loop counts and durations of an APNG and
    /// the orientation of an `eXIf` chunk (see ``PNGStructure``); no pixel is decoded.
    static func probe(_ data: Data) throws -> ImageHeader {
        let base = try readHeader(data) { image in
            ImageHeader(
                format: .PNG,
                pixelWidth: Int(image.pointee.width),
                pixelHeight: Int(image.pointee.height),
                frameCount: 1,
                hasAlpha: image.pointee.format & PNG_FORMAT_FLAG_ALPHA != 0)
        }
        return APNGCodec.header(base, structure: PNGStructure(data))
    }

    /// Decodes a still PNG, or an APNG through ``APNGCodec``, upright (an `eXIf` orientation is
    /// applied once, here).
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        // `minimumPixelSize` does not apply: libpng cannot scale while it decodes.
        let structure = PNGStructure(data)
        if let animation = structure.animation {
            return try APNGCodec.decode(data, structure: structure, animation: animation, options: options)
        }
        return try decodeStill(data, structure: structure, options: options)
    }

    /// The IDAT image of `data`, upright, as a still image.
    static func decodeStill(_ data: Data, structure: PNGStructure, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        let (frame, opaque) = try decodePixels(data, options: options)
        return KFCrossPlatformImage(validated: [structure.orientation.apply(to: frame)], loopCount: 0,
                                    scale: options.scale, isOpaque: opaque)
    }

    /// The pixels of the IDAT image of `data` as stored (no orientation applied), in sRGB unless
    /// `options` keeps the source's colours, premultiplied, and whether they are all opaque.
    ///
    /// With `refusesExtraData` (an APNG frame), image data that inflates to more than the image's
    /// rows is an error; libpng only warns of it, and a still PNG is decoded anyway, as browsers do.
    ///
    /// The common still PNG takes the libdeflate path (see ``PNGDeflateDecoder``) unless
    /// `allowsFastPath` is false; whatever it declines goes through libpng, and so do APNG frames
    /// (`refusesExtraData`), since libdeflate stops at the end of the stream without a word.
    static func decodePixels(_ data: Data, options: ImageCreatingOptions, refusesExtraData: Bool = false,
                             allowsFastPath: Bool = true) throws -> (frame: ImageFrame, opaque: Bool) {
        if allowsFastPath, !refusesExtraData, let decoded = try PNGDeflateDecoder.decode(data, options: options) {
            return decoded
        }
        return try readHeader(data) { image in
            let width = Int(image.pointee.width)
            let height = Int(image.pointee.height)
            try options.limits.checkFrame(width: width, height: height, format: format)
            let profile = options.keepsSourceColors ? nil : embeddedProfile(data)

            let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: 4)
            let (byteCount, sizeOverflow) = rowBytes.multipliedReportingOverflow(by: height)
            guard !rowOverflow, !sizeOverflow, let stride = Int32(exactly: rowBytes) else {
                throw decodingError("\(width)×\(height) pixels do not fit in memory")
            }

            // Must be set after begin_read, which initialises `flags`.
            image.pointee.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
            let sixteenBitInterlaced = image.pointee.format & PNG_FORMAT_FLAG_LINEAR != 0 && isInterlaced(data)

            var opaque = true
            let pixels = try PixelMemory.bytes(count: byteCount) { buffer in
                let output = UnsafeMutableBufferPointer(rebasing: buffer[0..<byteCount])
                if sixteenBitInterlaced {
                    try finishReadThroughLinear(image, into: output, pixelCount: width * height)
                } else {
                    image.pointee.format = kf_png_format_rgba
                    guard png_image_finish_read(image, nil, output.baseAddress, stride, nil) != 0 else {
                        throw decodingError("\(PNGControl.message(of: image))")
                    }
                    if refusesExtraData, let extra = PNGControl.extraDataWarning(of: image) {
                        throw decodingError(extra)
                    }
                }
                try ColorManagement.convertToSRGB(UnsafeMutableRawBufferPointer(output), width: width, height: height,
                                                  from: profile, options: options)
                opaque = PixelConversion.premultiply(UnsafeMutableRawBufferPointer(output))
            }
            return (ImageFrame(unchecked: width, height: height, pixels: pixels), opaque)
        }
    }

    /// True when the IHDR of `data`, which libpng has already accepted, says Adam7. IHDR is always
    /// the first chunk, so its interlace byte is at offset 28.
    private static func isInterlaced(_ data: Data) -> Bool {
        data.count > 28 && data[data.startIndex + 28] == 1
    }

    /// Reads the header of `data` with `png_image_begin_read_from_memory` and calls `body` with the
    /// image ready for `png_image_finish_read`.
    ///
    /// `data` stays pinned for the whole of `body`, because libpng reads from it until the end.
    /// Chunks claiming more bytes than the data holds are refused first (see ``PNGChunkLayout``).
    /// A header read that produced only warnings counts as success.
    private static func readHeader<Result>(
        _ data: Data, _ body: (UnsafeMutablePointer<png_image>) throws -> Result
    ) throws -> Result {
        try data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, !raw.isEmpty else {
                throw decodingError("the data is empty")
            }
            if let chunk = PNGChunkLayout.firstOverlongChunk(in: raw) {
                throw decodingError("the \(chunk.type) chunk claims \(chunk.length) bytes, past the end of the data")
            }
            return try PNGControl.with { image in
                guard png_image_begin_read_from_memory(image, base, raw.count) != 0 else {
                    throw decodingError("the header is unreadable: \(PNGControl.message(of: image))")
                }
                return try body(image)
            }
        }
    }
}
