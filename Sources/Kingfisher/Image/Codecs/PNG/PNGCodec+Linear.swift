import CLibPNG
import Foundation

extension PNGCodec {
    /// Finishes reading a 16-bit Adam7 image through 16-bit linear RGBA, leaving straight 8-bit RGBA
    /// in `output`.
    ///
    /// Asked for 8-bit output, libpng's simplified API mishandles exactly this case: releases before
    /// 1.6.51 write past the caller's buffer (CVE-2025-65018), and the fix in 1.6.51, which Debian
    /// backported to 1.6.39, gives wrong pixels instead (pixels of earlier passes are lost,
    /// pnggroup/libpng#853). Read at 16 bits, no depth changes between IHDR and output, so libpng's
    /// interlace handling is sound. The linear output has colour multiplied by alpha in linear light;
    /// this divides it out and encodes with the gamma libpng's 8-bit path uses, 1/2.2, which comes
    /// within 1 of reading at 8 bits.
    static func finishReadThroughLinear(_ image: UnsafeMutablePointer<png_image>,
                                        into output: UnsafeMutableBufferPointer<UInt8>, pixelCount: Int) throws {
        let sampleCount = pixelCount * 4
        guard output.count == sampleCount, let stride = Int32(exactly: Int(image.pointee.width) * 4) else {
            throw decodingError("the image is too wide")
        }
        let wide = UnsafeMutableBufferPointer<UInt16>.allocate(capacity: sampleCount)
        defer { wide.deallocate() }
        image.pointee.format = PNG_FORMAT_FLAG_LINEAR | PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA
        guard png_image_finish_read(image, nil, wide.baseAddress, stride, nil) != 0 else {
            throw decodingError("\(PNGControl.message(of: image))")
        }
        LinearEncoding.table.withUnsafeBufferPointer { table in
            var index = 0
            while index < sampleCount {
                let alpha = UInt32(wide[index &+ 3])
                // As png_set_scale_16 rounds: v / 257 to nearest.
                let alpha8 = UInt8(truncatingIfNeeded: (alpha &* 255 &+ 32_895) >> 16)
                for channel in index..<index &+ 3 {
                    let value = UInt32(wide[channel])
                    if alpha8 == 0 {
                        output[channel] = 0
                    } else if alpha == 65_535 {
                        output[channel] = table[Int(value)]
                    } else {
                        // alpha8 > 0 means alpha ≥ 129; the product stays below 2^32.
                        let straight = min(65_535, (value &* 65_535 &+ alpha >> 1) / alpha)
                        output[channel] = table[Int(straight)]
                    }
                }
                output[index &+ 3] = alpha8
                index &+= 4
            }
        }
    }
}

/// Linear light (16 bits) to gamma-encoded 8 bits, with the 1/2.2 power libpng uses for its sRGB output.
enum LinearEncoding {
    /// 65,536 entries, built on first use.
    static let table: [UInt8] = (0...65_535).map { value in
        let encoded = pow(Double(value) / 65_535, 0.45455) * 255
        return UInt8(min(255, max(0, encoded.rounded())))
    }
}
