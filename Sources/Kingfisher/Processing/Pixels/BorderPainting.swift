import Foundation

/// Paints a border band inside the edge of a frame: the part of an outer rounded rectangle (the
/// frame itself) not inside an inner one (inset by the line width), anti-aliased.
///
/// Each pixel gets the colour source-over with the exact fraction of it inside the band
/// (outer coverage minus inner coverage, since the inner shape lies within the outer one). Pixels
/// outside the outer shape, such as those beyond a rounded corner, keep the image. Rows are copied
/// and only band pixels are touched, so the cost is a copy of the frame plus the band.
enum BorderPainting {
    /// `frame` with a band of `lineWidth` pixels painted in premultiplied `color`. The outer edge has
    /// corners of `outerRadius`, the inner edge corners of `innerRadius` (both about the same
    /// centres for a stroked arc); `corners` selects which corners are rounded.
    static func paint(_ frame: ImageFrame, lineWidth: Double, outerRadius: Double, innerRadius: Double,
                      corners: RectCorner, color: RGBA8) -> ImageFrame {
        let width = frame.width, height = frame.height
        let w = Double(width), h = Double(height)
        let outer = RoundedRectCoverage(left: 0, top: 0, right: w, bottom: h, radius: outerRadius, corners: corners)
        let inner = RoundedRectCoverage(left: lineWidth, top: lineWidth, right: w - lineWidth, bottom: h - lineWidth,
                                        radius: innerRadius, corners: corners)
        let rowBytes = width * 4
        let pixels = frame.pixels.withUnsafeBufferPointer { source in
            PixelMemory.bytes(count: source.count) { destination in
                guard let sourceBase = source.baseAddress, let destinationBase = destination.baseAddress else { return }
                destinationBase.update(from: sourceBase, count: source.count)
                for y in 0..<height {
                    let outerRow = outer.row(y, width: width)
                    let innerRow = inner.row(y, width: width)
                    // Inside the inner shape's fully covered run the band is empty.
                    let skipStart = innerRow.fullValue >= 1 ? innerRow.fullStart : outerRow.zeroStart
                    let skipEnd = innerRow.fullValue >= 1 ? innerRow.fullEnd : outerRow.zeroStart
                    let output = destinationBase + y * rowBytes
                    var x = outerRow.zeroEnd
                    while x < outerRow.zeroStart {
                        if x == skipStart, skipEnd > skipStart {
                            x = skipEnd
                            continue
                        }
                        let band = Self.value(outerRow, outer, x, y) - Self.value(innerRow, inner, x, y)
                        if band > 0 {
                            Self.paint(output + x * 4, color: color, coverage: band)
                        }
                        x += 1
                    }
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frame.duration)
    }

    /// The coverage of pixel `x` of a row, from the row's runs where they decide it.
    @inline(__always)
    private static func value(_ row: RoundedRectCoverage.Row, _ shape: RoundedRectCoverage, _ x: Int, _ y: Int) -> Double {
        if x < row.zeroEnd || x >= row.zeroStart { return 0 }
        if x >= row.fullStart && x < row.fullEnd { return row.fullValue }
        return shape.coverage(x: x, y: y)
    }

    /// `color`, weighted by `coverage`, over the pixel at `pixel`.
    @inline(__always)
    private static func paint(_ pixel: UnsafeMutablePointer<UInt8>, color: RGBA8, coverage: Double) {
        let weight = UInt32((min(coverage, 1) * 255).rounded())
        guard weight > 0 else { return }
        let a = PixelConversion.multiply(color.a, weight)
        let rest = UInt32(255 &- a)
        pixel[0] = PixelConversion.multiply(color.r, weight) &+ PixelConversion.multiply(pixel[0], rest)
        pixel[1] = PixelConversion.multiply(color.g, weight) &+ PixelConversion.multiply(pixel[1], rest)
        pixel[2] = PixelConversion.multiply(color.b, weight) &+ PixelConversion.multiply(pixel[2], rest)
        pixel[3] = a &+ PixelConversion.multiply(pixel[3], rest)
    }
}
