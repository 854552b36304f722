import Foundation

/// One colour laid over every pixel of a frame: the tint and the overlay, in integer arithmetic
/// on premultiplied bytes.
enum ColorFill {
    /// `color` (premultiplied) drawn source-over each pixel: `c + p·(1 − αc)` on every component,
    /// alpha included. Exactly rounded; colour never exceeds alpha.
    static func sourceOver(_ color: RGBA8, onto frame: ImageFrame) -> ImageFrame {
        let keep = 255 - UInt32(color.a)
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { input in
                var offset = 0
                while offset < input.count {
                    output[offset] = color.r &+ PixelConversion.multiply(input[offset], keep)
                    output[offset &+ 1] = color.g &+ PixelConversion.multiply(input[offset &+ 1], keep)
                    output[offset &+ 2] = color.b &+ PixelConversion.multiply(input[offset &+ 2], keep)
                    output[offset &+ 3] = color.a &+ PixelConversion.multiply(input[offset &+ 3], keep)
                    offset &+= 4
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }

    /// The straight colour `red, green, blue` mixed into each pixel with weight `weight` (0...255)
    /// where the pixel is: premultiplied `p·(1 − w) + color·w·αp`, alpha kept.
    static func mix(red: UInt8, green: UInt8, blue: UInt8, weight: UInt8, into frame: ImageFrame) -> ImageFrame {
        let colorWeight = UInt32(weight)
        let pixelWeight = (255 - colorWeight) &* 255
        @inline(__always) func channel(_ pixel: UInt8, _ color: UInt8, _ alpha: UInt32) -> UInt8 {
            // Both terms are in units of 1/65025; the sum never exceeds 65025·alpha.
            let total = UInt32(pixel) &* pixelWeight &+ UInt32(color) &* colorWeight &* alpha
            return UInt8(truncatingIfNeeded: (total &+ 32_512) / 65_025)
        }
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { input in
                var offset = 0
                while offset < input.count {
                    let alpha = UInt32(input[offset &+ 3])
                    output[offset] = channel(input[offset], red, alpha)
                    output[offset &+ 1] = channel(input[offset &+ 1], green, alpha)
                    output[offset &+ 2] = channel(input[offset &+ 2], blue, alpha)
                    output[offset &+ 3] = input[offset &+ 3]
                    offset &+= 4
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }
}
