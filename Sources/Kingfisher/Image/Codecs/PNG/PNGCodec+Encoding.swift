import Foundation

extension PNGCodec {
    /// The first frame as 8-bit RGB when the image is opaque, else as 8-bit straight RGBA, written
    /// by ``PNGDeflateEncoder``. PNG is lossless: `options` has nothing that applies.
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        let frame = image.firstFrame
        if image.isOpaque {
            return try rgbBytes(of: frame).withUnsafeBytes {
                try PNGDeflateEncoder.encode($0, width: frame.width, height: frame.height, channels: 3)
            }
        }
        return try PixelConversion.unpremultiplied(frame.pixels).withUnsafeBytes {
            try PNGDeflateEncoder.encode($0, width: frame.width, height: frame.height, channels: 4)
        }
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
}
