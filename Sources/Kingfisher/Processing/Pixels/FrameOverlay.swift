import Foundation

/// Draws one premultiplied frame over another at a pixel position, source-over.
enum FrameOverlay {
    /// `base` with `mark` drawn over it, its top-left corners at each of `origins`, at `opacity`
    /// (0...1, multiplying the mark's alpha); parts outside `base` are clipped. With `replaces`
    /// the mark's pixels are copied instead (opacity ignored). Same size and duration as `base`.
    static func draw(_ mark: ImageFrame, over base: ImageFrame, at origins: [(x: Int, y: Int)], opacity: Float,
                     replaces: Bool = false) -> ImageFrame {
        let weight = UInt32((min(max(opacity, 0), 1) * 255).rounded())
        guard weight > 0 else { return base }
        var pixels = base.pixels
        let baseWidth = base.width, baseHeight = base.height
        let markWidth = mark.width
        pixels.withUnsafeMutableBufferPointer { target in
            mark.pixels.withUnsafeBufferPointer { source in
                for origin in origins {
                    let firstColumn = max(0, -origin.x), lastColumn = min(mark.width, baseWidth - origin.x)
                    let firstRow = max(0, -origin.y), lastRow = min(mark.height, baseHeight - origin.y)
                    guard firstColumn < lastColumn, firstRow < lastRow else { continue }
                    for row in firstRow..<lastRow where replaces {
                        let from = (row * markWidth + firstColumn) * 4
                        let to = ((origin.y + row) * baseWidth + origin.x + firstColumn) * 4
                        let count = (lastColumn - firstColumn) * 4
                        guard let targetBase = target.baseAddress, let sourceBase = source.baseAddress else { continue }
                        (targetBase + to).update(from: sourceBase + from, count: count)
                    }
                    guard !replaces else { continue }
                    for row in firstRow..<lastRow {
                        var from = (row * markWidth + firstColumn) * 4
                        var to = ((origin.y + row) * baseWidth + origin.x + firstColumn) * 4
                        for _ in firstColumn..<lastColumn {
                            let alpha = scaled(UInt32(source[from + 3]), weight)
                            if alpha > 0 {
                                let keep = 255 - alpha
                                for channel in 0..<3 {
                                    let value = scaled(UInt32(source[from + channel]), weight) + scaled(UInt32(target[to + channel]), keep)
                                    target[to + channel] = UInt8(min(value, 255))
                                }
                                target[to + 3] = UInt8(min(alpha + scaled(UInt32(target[to + 3]), keep), 255))
                            }
                            from += 4
                            to += 4
                        }
                    }
                }
            }
        }
        return ImageFrame(unchecked: baseWidth, height: baseHeight, pixels: pixels, duration: base.duration)
    }

    /// `value · factor / 255`, rounded.
    @inline(__always)
    private static func scaled(_ value: UInt32, _ factor: UInt32) -> UInt32 {
        let product = value * factor + 128
        return (product + (product >> 8)) >> 8
    }
}
