import Foundation

/// A frame reduced to a palette of at most 256 colours: what the GIF encoder writes.
struct IndexedFrame {
    /// One palette index per pixel, rows top to bottom.
    var indices: [UInt8]
    /// The colours as R, G, B bytes; at most 256 of them.
    var palette: [UInt8]
    /// The palette index of transparent pixels, `nil` when the frame has none.
    var transparentIndex: Int?

    /// Colours in `palette`.
    var colorCount: Int { palette.count / 3 }
}

/// Reduces a premultiplied RGBA frame to at most 256 colours for GIF.
///
/// Pixels with alpha under 128 become the transparent index (index 0, when there are any); the
/// others are unpremultiplied and kept opaque. A frame with few enough distinct colours keeps them
/// exactly; any other goes through ``MedianCutQuantizer``.
enum ColorQuantizer {
    /// Alpha below this is transparent in a GIF; at or above it, opaque.
    static let alphaThreshold: UInt8 = 128

    static func quantize(_ frame: ImageFrame) -> IndexedFrame {
        let straight = PixelConversion.unpremultiplied(frame.pixels)
        let pixelCount = frame.width * frame.height
        return straight.withUnsafeBufferPointer { rgba in
            let hasTransparency = containsTransparency(rgba, pixelCount: pixelCount)
            let capacity = hasTransparency ? 255 : 256
            if let exact = exactColors(rgba, pixelCount: pixelCount, capacity: capacity, hasTransparency: hasTransparency) {
                return exact
            }
            let histogram = MedianCutQuantizer(rgba: rgba, pixelCount: pixelCount)
            return histogram.indexedFrame(rgba: rgba, pixelCount: pixelCount, capacity: capacity, hasTransparency: hasTransparency)
        }
    }

    private static func containsTransparency(_ rgba: UnsafeBufferPointer<UInt8>, pixelCount: Int) -> Bool {
        var offset = 3
        let end = pixelCount &* 4
        while offset < end {
            if rgba[offset] < alphaThreshold { return true }
            offset &+= 4
        }
        return false
    }

    /// The frame with its own colours when it has at most `capacity` opaque ones; `nil` otherwise.
    ///
    /// Colours are numbered in order of first appearance, after the transparent index 0.
    private static func exactColors(_ rgba: UnsafeBufferPointer<UInt8>, pixelCount: Int, capacity: Int, hasTransparency: Bool) -> IndexedFrame? {
        // Open addressing, at most a quarter full; `UInt32.max` is never a packed RGB value.
        let slotCount = 1024
        var keys = [UInt32](repeating: .max, count: slotCount)
        var values = [UInt8](repeating: 0, count: slotCount)
        var palette: [UInt8] = hasTransparency ? [0, 0, 0] : []
        var indices = [UInt8](repeating: 0, count: pixelCount)
        let firstIndex = hasTransparency ? 1 : 0
        var distinct = 0
        let fits = keys.withUnsafeMutableBufferPointer { keys in
            values.withUnsafeMutableBufferPointer { values in
                indices.withUnsafeMutableBufferPointer { output in
                    var lastKey = UInt32.max
                    var lastIndex: UInt8 = 0
                    for pixel in 0..<pixelCount {
                        let offset = pixel &* 4
                        if rgba[offset &+ 3] < alphaThreshold {
                            output[pixel] = 0
                            continue
                        }
                        let key = UInt32(rgba[offset]) << 16 | UInt32(rgba[offset &+ 1]) << 8 | UInt32(rgba[offset &+ 2])
                        if key != lastKey {
                            var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B1) >> 22)
                            while keys[slot] != key {
                                if keys[slot] == .max {
                                    guard distinct < capacity else { return false }
                                    keys[slot] = key
                                    values[slot] = UInt8(truncatingIfNeeded: firstIndex &+ distinct)
                                    distinct &+= 1
                                    palette.append(contentsOf: [rgba[offset], rgba[offset &+ 1], rgba[offset &+ 2]])
                                    break
                                }
                                slot = (slot &+ 1) & (slotCount &- 1)
                            }
                            lastKey = key
                            lastIndex = values[slot]
                        }
                        output[pixel] = lastIndex
                    }
                    return true
                }
            }
        }
        guard fits else { return nil }
        return IndexedFrame(indices: indices, palette: palette, transparentIndex: hasTransparency ? 0 : nil)
    }
}
