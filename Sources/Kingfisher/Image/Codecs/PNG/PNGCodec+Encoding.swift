import CLibPNG
import Foundation

extension PNGCodec {
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        // PNG is lossless: `options` has nothing that applies. Only the first frame is written.
        let frame = image.firstFrame
        if image.isOpaque {
            return try write(rgbBytes(of: frame), width: frame.width, height: frame.height,
                             format: kf_png_format_rgb, channels: 3)
        }
        return try write(PixelConversion.unpremultiplied(frame.pixels), width: frame.width, height: frame.height,
                         format: kf_png_format_rgba, channels: 4)
    }

    /// The colour bytes of an opaque frame with alpha dropped; premultiplied equals straight there.
    private static func rgbBytes(of frame: ImageFrame) -> [UInt8] {
        let pixelCount = frame.width * frame.height
        return [UInt8](unsafeUninitializedCapacity: pixelCount * 3) { output, initializedCount in
            frame.pixels.withUnsafeBufferPointer { input in
                var source = 0
                var target = 0
                while target < pixelCount &* 3 {
                    output[target] = input[source]
                    output[target &+ 1] = input[source &+ 1]
                    output[target &+ 2] = input[source &+ 2]
                    source &+= 4
                    target &+= 3
                }
            }
            initializedCount = pixelCount * 3
        }
    }

    /// Compresses packed 8-bit rows of `channels` bytes per pixel into a PNG with libpng's
    /// default settings, which have no time stamp or randomness: the same pixels give the same bytes.
    private static func write(_ pixels: [UInt8], width: Int, height: Int, format: UInt32, channels: Int) throws -> Data {
        guard let pngWidth = UInt32(exactly: width), let pngHeight = UInt32(exactly: height),
              let stride = Int32(exactly: width * channels)
        else {
            throw encodingError("\(width)×\(height) pixels is too large for libpng")
        }
        // libpng's own bound (PNG_IMAGE_PNG_SIZE_MAX): stored deflate plus chunk overhead. Pages
        // of the buffer that libpng never writes are never touched, so the bound costs little.
        let raw = (width * channels + 1) * height
        let deflated = raw + (raw + 7) / 8 + (raw + 63) / 64 + 11
        var capacity = 1024 + deflated + 12 * (deflated / 8192 + 1)

        // A second pass only if libpng says the bound was too small, with the size it asks for.
        for _ in 0..<2 {
            let attempt = try pixels.withUnsafeBytes { input in
                try PNGControl.with { image in
                    image.pointee.width = pngWidth
                    image.pointee.height = pngHeight
                    image.pointee.format = format
                    return try writeOnce(image, input, stride: stride, capacity: capacity)
                }
            }
            switch attempt {
            case .written(let data): return data
            case .needs(let bytes): capacity = bytes
            }
        }
        throw encodingError("libpng kept asking for a larger buffer")
    }

    /// What one call of `png_image_write_to_memory` came to.
    private enum WriteAttempt {
        case written(Data)
        case needs(Int)
    }

    private static func writeOnce(_ image: UnsafeMutablePointer<png_image>, _ input: UnsafeRawBufferPointer,
                                  stride: Int32, capacity: Int) throws -> WriteAttempt {
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { output.deallocate() }
        var size = png_alloc_size_t(capacity)
        let succeeded = png_image_write_to_memory(image, output.baseAddress, &size, 0, input.baseAddress, stride, nil) != 0
        if succeeded, let base = output.baseAddress, let written = Int(exactly: size), written <= capacity {
            return .written(Data(bytes: base, count: written))
        }
        if !PNGControl.failed(image), let needed = Int(exactly: size), needed > capacity {
            return .needs(needed)
        }
        throw encodingError("\(PNGControl.message(of: image))")
    }
}
