import Foundation

/// Cuts the corners of a frame along quarter circles, with anti-aliased edges, optionally over a
/// background colour.
///
/// Each pixel the arc crosses is multiplied by the exact fraction of it inside the shape; with a
/// background the image is composited over it (`image·c + background·(1 − alpha·c)`, which is
/// "image over background" inside and the background outside). Only the corner squares get per-pixel
/// work; every other span is copied or filled, so the cost is that of one copy of the frame.
enum CornerClipping {
    /// `frame` with the selected corners rounded by `radius` pixels (clamped to half the shorter
    /// side). `background` is premultiplied; `nil` leaves the cut-off parts transparent.
    /// `opaque` says every pixel of `frame` has alpha 255, which lets the interior be copied as it is
    /// even under a background.
    static func clip(_ frame: ImageFrame, radius: Double, corners: RectCorner, background: RGBA8?, opaque: Bool) -> ImageFrame {
        let width = frame.width, height = frame.height
        let shape = RoundedRectCoverage(left: 0, top: 0, right: Double(width), bottom: Double(height),
                                        radius: radius, corners: corners)
        let rowBytes = width * 4
        let copyInterior = background == nil || opaque
        let pixels = frame.pixels.withUnsafeBufferPointer { source in
            PixelMemory.bytes(count: source.count) { destination in
                guard let sourceBase = source.baseAddress, let destinationBase = destination.baseAddress else { return }
                let writer = PixelWriter(background: background)
                for y in 0..<height {
                    let row = shape.row(y, width: width)
                    let input = sourceBase + y * rowBytes
                    let output = destinationBase + y * rowBytes
                    writer.fillOutside(output, from: 0, to: row.zeroEnd)
                    for x in row.zeroEnd..<row.fullStart {
                        writer.blend(input, output, at: x, coverage: shape.coverage(x: x, y: y))
                    }
                    if row.fullValue >= 1 {
                        if copyInterior {
                            (output + row.fullStart * 4).update(from: input + row.fullStart * 4,
                                                                count: (row.fullEnd - row.fullStart) * 4)
                        } else {
                            writer.composite(input, output, from: row.fullStart, to: row.fullEnd)
                        }
                    } else {
                        for x in row.fullStart..<row.fullEnd {
                            writer.blend(input, output, at: x, coverage: row.fullValue)
                        }
                    }
                    for x in row.fullEnd..<row.zeroStart {
                        writer.blend(input, output, at: x, coverage: shape.coverage(x: x, y: y))
                    }
                    writer.fillOutside(output, from: row.zeroStart, to: width)
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frame.duration)
    }
}

/// The per-pixel steps of ``CornerClipping``, with the background colour unpacked once.
private struct PixelWriter {
    let hasBackground: Bool
    let red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    /// For each source alpha `a`, the background scaled by `255 − a`, packed as a little-endian
    /// RGBA word: "source over background" is then one addition per pixel, with no carry between
    /// bytes because each sum is at most 255.
    let backgroundUnder: [UInt32]

    init(background: RGBA8?) {
        let color = background ?? RGBA8(r: 0, g: 0, b: 0, a: 0)
        hasBackground = background != nil && color.a > 0
        red = color.r
        green = color.g
        blue = color.b
        alpha = color.a
        backgroundUnder = (0...255).map { (sourceAlpha: UInt32) -> UInt32 in
            let rest = 255 - sourceAlpha
            return UInt32(PixelConversion.multiply(color.r, rest)) | UInt32(PixelConversion.multiply(color.g, rest)) << 8
                | UInt32(PixelConversion.multiply(color.b, rest)) << 16 | UInt32(PixelConversion.multiply(color.a, rest)) << 24
        }
    }

    /// Fills pixels `[start, end)` of a row with the background, or with transparent black.
    @inline(__always)
    func fillOutside(_ row: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) {
        guard end > start else { return }
        guard hasBackground else {
            (row + start * 4).update(repeating: 0, count: (end - start) * 4)
            return
        }
        var offset = start * 4
        let stop = end * 4
        while offset < stop {
            row[offset] = red
            row[offset &+ 1] = green
            row[offset &+ 2] = blue
            row[offset &+ 3] = alpha
            offset &+= 4
        }
    }

    /// Pixel `x` scaled by `coverage`, over the background if there is one.
    @inline(__always)
    func blend(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, at x: Int, coverage: Double) {
        let weight = UInt32((coverage * 255).rounded())
        let offset = x * 4
        let r = PixelConversion.multiply(input[offset], weight)
        let g = PixelConversion.multiply(input[offset + 1], weight)
        let b = PixelConversion.multiply(input[offset + 2], weight)
        let a = PixelConversion.multiply(input[offset + 3], weight)
        guard hasBackground else {
            output[offset] = r
            output[offset + 1] = g
            output[offset + 2] = b
            output[offset + 3] = a
            return
        }
        let rest = UInt32(255 &- a)
        output[offset] = r &+ PixelConversion.multiply(red, rest)
        output[offset + 1] = g &+ PixelConversion.multiply(green, rest)
        output[offset + 2] = b &+ PixelConversion.multiply(blue, rest)
        output[offset + 3] = a &+ PixelConversion.multiply(alpha, rest)
    }

    /// Pixels `[start, end)` fully inside the shape, composited over the background.
    @inline(__always)
    func composite(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) {
        let source = UnsafeRawPointer(input), destination = UnsafeMutableRawPointer(output)
        backgroundUnder.withUnsafeBufferPointer { table in
            var offset = start * 4
            let stop = end * 4
            while offset < stop {
                let pixel = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let result = pixel &+ table[Int(pixel >> 24)]
                destination.storeBytes(of: result.littleEndian, toByteOffset: offset, as: UInt32.self)
                offset &+= 4
            }
        }
    }
}
