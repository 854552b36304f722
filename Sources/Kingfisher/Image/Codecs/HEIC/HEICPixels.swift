import CLibHEIF
import Foundation

/// Copies libheif's decoded interleaved RGBA plane into a packed ``ImageFrame``.
enum HEICPixels {
    /// The pixels of `image` (decoded as RGB, interleaved RGBA, 8 bits), rows packed, after
    /// `finish` has worked on them (colour conversion and premultiplying) with their size.
    static func frame(of image: HEIFLibrary.Image, library: HEIFLibrary, options: ImageCreatingOptions,
                      finish: (UnsafeMutableRawBufferPointer, Int, Int) throws -> Void) throws -> ImageFrame {
        let width = Int(library.imageWidth(image, heif_channel_interleaved))
        let height = Int(library.imageHeight(image, heif_channel_interleaved))
        try options.limits.checkFrame(width: width, height: height, format: HEICCodec.format)
        let bits = library.imageBitsPerPixelRange(image, heif_channel_interleaved)
        guard bits == 8 else {
            throw HEICCodec.decodingError("libheif gave \(bits)-bit samples where 8-bit RGBA was asked for")
        }
        var stride: Int32 = 0
        guard let plane = library.planeReadonly(image, heif_channel_interleaved, &stride) else {
            throw HEICCodec.decodingError("libheif returned no interleaved RGBA plane")
        }
        let rowBytes = width * 4
        guard Int(stride) >= rowBytes else {
            throw HEICCodec.decodingError("libheif returned rows of \(stride) bytes for \(width) pixels")
        }
        let pixels = try PixelMemory.bytes(count: rowBytes * height) { buffer in
            guard let target = buffer.baseAddress else { return }
            for row in 0..<height {
                (target + row * rowBytes).update(from: plane + row * Int(stride), count: rowBytes)
            }
            try finish(UnsafeMutableRawBufferPointer(buffer), width, height)
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels)
    }
}
