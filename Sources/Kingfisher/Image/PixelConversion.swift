import Foundation

/// Conversions between straight and premultiplied alpha, in place, over packed RGBA8.
enum PixelConversion {
    /// Multiplies colour by alpha with rounding; returns true when every pixel was opaque.
    @discardableResult
    static func premultiply(_ pixels: UnsafeMutableRawBufferPointer) -> Bool {
        guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var opaque = true
        var offset = 0
        let end = pixels.count & ~3
        while offset < end {
            let alpha = UInt32(base[offset &+ 3])
            if alpha != 255 {
                opaque = false
                base[offset] = multiply(base[offset], alpha)
                base[offset &+ 1] = multiply(base[offset &+ 1], alpha)
                base[offset &+ 2] = multiply(base[offset &+ 2], alpha)
            }
            offset &+= 4
        }
        return opaque
    }

    /// Divides colour by alpha with rounding, for encoders that store straight alpha.
    static func unpremultiply(_ pixels: UnsafeMutableRawBufferPointer) {
        guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var offset = 0
        let end = pixels.count & ~3
        while offset < end {
            let alpha = UInt32(base[offset &+ 3])
            if alpha == 0 {
                base[offset] = 0
                base[offset &+ 1] = 0
                base[offset &+ 2] = 0
            } else if alpha != 255 {
                let half = alpha >> 1
                base[offset] = UInt8(min(255, (UInt32(base[offset]) &* 255 &+ half) / alpha))
                base[offset &+ 1] = UInt8(min(255, (UInt32(base[offset &+ 1]) &* 255 &+ half) / alpha))
                base[offset &+ 2] = UInt8(min(255, (UInt32(base[offset &+ 2]) &* 255 &+ half) / alpha))
            }
            offset &+= 4
        }
    }

    /// A copy of premultiplied `pixels` with straight alpha.
    static func unpremultiplied(_ pixels: [UInt8]) -> [UInt8] {
        var copy = pixels
        copy.withUnsafeMutableBytes { unpremultiply($0) }
        return copy
    }

    /// `value * alpha / 255`, rounded, exact for all byte inputs.
    @inline(__always)
    static func multiply(_ value: UInt8, _ alpha: UInt32) -> UInt8 {
        let product = UInt32(value) &* alpha &+ 128
        return UInt8(truncatingIfNeeded: (product &+ (product >> 8)) >> 8)
    }
}
