import CLibPNG
import Foundation

/// PNG decoding and encoding through libpng 1.6's simplified API, which reports every failure by
/// return code (no `setjmp` crosses Swift).
///
/// Every colour type, bit depth and interlace method decodes to 8-bit premultiplied RGBA in sRGB.
/// libpng converts: palettes and `tRNS` expand to RGBA, low bit depths scale up, 16-bit samples
/// scale down rounding to nearest, and a `gAMA` that is not sRGB's is converted to sRGB. 16-bit
/// files without gamma information are taken as sRGB-encoded (libpng would assume linear).
/// 16-bit Adam7 files go through 16-bit linear light instead (see `finishReadThroughLinear`) and
/// come out within 1 of that. The encoder writes the first frame as 8-bit RGB when the image is
/// opaque, else as 8-bit RGBA.
enum PNGCodec: ImageCodec {
    static let format = ImageFormat.PNG

    static func probe(_ data: Data) throws -> ImageHeader {
        try readHeader(data) { image in
            ImageHeader(
                format: .PNG,
                pixelWidth: Int(image.pointee.width),
                pixelHeight: Int(image.pointee.height),
                frameCount: 1,
                hasAlpha: image.pointee.format & PNG_FORMAT_FLAG_ALPHA != 0)
        }
    }

    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        // `minimumPixelSize` does not apply: libpng cannot scale while it decodes.
        try readHeader(data) { image in
            let width = Int(image.pointee.width)
            let height = Int(image.pointee.height)
            try options.limits.checkFrame(width: width, height: height, format: format)

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
                }
                opaque = PixelConversion.premultiply(UnsafeMutableRawBufferPointer(output))
            }
            let frame = ImageFrame(unchecked: width, height: height, pixels: pixels)
            return KFCrossPlatformImage(validated: [frame], loopCount: 0, scale: options.scale, isOpaque: opaque)
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
