import Foundation

/// One bitmap of an image: 8-bit RGBA, premultiplied alpha, sRGB, rows packed with no padding.
///
/// A still image has one frame; an animated image has one per step of its animation, each already
/// composited onto the full canvas, so every frame of an image has the same pixel size.
public struct ImageFrame: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel, colour premultiplied by alpha.
    public let pixels: [UInt8]
    /// How long the frame shows in an animation, in seconds; 0 for a still image.
    public let duration: TimeInterval

    /// Bytes in one row of `pixels`.
    public var bytesPerRow: Int { width * 4 }

    /// Makes a frame; `nil` when a dimension is not positive or `pixels` is not `width * height * 4` bytes.
    public init?(width: Int, height: Int, pixels: [UInt8], duration: TimeInterval = 0) {
        guard width > 0, height > 0,
              case let (count, overflow) = width.multipliedReportingOverflow(by: height * 4),
              !overflow, count == pixels.count
        else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
        self.duration = duration.isFinite && duration > 0 ? duration : 0
    }

    /// For decoders and processors that have already checked the sizes.
    init(unchecked width: Int, height: Int, pixels: [UInt8], duration: TimeInterval = 0) {
        assert(width > 0 && height > 0 && pixels.count == width * height * 4)
        self.width = width
        self.height = height
        self.pixels = pixels
        self.duration = duration
    }

    /// The premultiplied RGBA value at (`x`, `y`), origin top left; `nil` outside the frame.
    public func pixel(x: Int, y: Int) -> RGBA8? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let offset = (y * width + x) * 4
        return RGBA8(r: pixels[offset], g: pixels[offset + 1], b: pixels[offset + 2], a: pixels[offset + 3])
    }

    /// The same pixels shown for `duration` seconds.
    public func withDuration(_ duration: TimeInterval) -> ImageFrame {
        ImageFrame(unchecked: width, height: height, pixels: pixels, duration: duration.isFinite && duration > 0 ? duration : 0)
    }

    /// True when every pixel has alpha 255.
    ///
    /// ANDs whole pixels as 32-bit words, which the compiler vectorises: the alpha byte of the
    /// result is 255 only if it is 255 in every pixel.
    var allOpaque: Bool {
        pixels.withUnsafeBytes { raw in
            var accumulator: UInt32 = 0xFFFF_FFFF
            raw.withMemoryRebound(to: UInt32.self) { words in
                for word in words {
                    accumulator &= word
                }
            }
            return UInt32(littleEndian: accumulator) >> 24 == 0xFF
        }
    }
}

/// One premultiplied 8-bit RGBA pixel.
public struct RGBA8: Sendable, Hashable, CustomStringConvertible {
    /// Red, premultiplied.
    public var r: UInt8
    /// Green, premultiplied.
    public var g: UInt8
    /// Blue, premultiplied.
    public var b: UInt8
    /// Alpha.
    public var a: UInt8

    /// Makes a pixel from its four premultiplied components.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// `(r,g,b,a)` in decimal.
    public var description: String { "(\(r),\(g),\(b),\(a))" }
}
