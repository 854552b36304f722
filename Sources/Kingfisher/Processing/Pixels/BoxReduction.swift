/// The first stage of a large reduction: averages of `factor`×`factor` blocks of premultiplied
/// RGBA8, so that the Lanczos filter after it works on a few times fewer pixels.
///
/// A Lanczos-3 window shrinking by `s` reads 6·`s` input pixels in each direction, so its cost grows
/// with the square of the reduction. Averaging blocks first costs one read of every input pixel and
/// leaves the Lanczos stage a factor of at least ``reducingGap``, where its window still spans
/// several averaged pixels: the result stays within a fraction of a grey level of a Lanczos-only
/// reduction on photographs (libvips and Pillow reduce large factors the same way). Blocks at the
/// right and bottom edges that the image does not fill average the pixels they have.
enum BoxReduction {
    /// The least factor left to the Lanczos stage.
    static let reducingGap = 1.5

    /// The block size for reducing `width`×`height` to `outputWidth`×`outputHeight`: the largest
    /// whole number that leaves both directions at least ``reducingGap`` to go; 1 means no block stage.
    static func factor(width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> Int {
        let horizontal = Double(width) / Double(max(outputWidth, 1))
        let vertical = Double(height) / Double(max(outputHeight, 1))
        return max(1, Int(min(horizontal, vertical) / reducingGap))
    }

    /// `source` (`width`×`height`) averaged over `factor`×`factor` blocks, rounded to nearest, and
    /// the reduced size (each side rounded up).
    static func reduce(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                       factor: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        precondition(factor > 1 && width > 0 && height > 0 && source.count >= width * height * 4)
        let outputWidth = (width + factor - 1) / factor
        let outputHeight = (height + factor - 1) / factor
        var sums = [UInt32](repeating: 0, count: outputWidth * 4)
        let pixels = PixelMemory.bytes(count: outputWidth * outputHeight * 4) { output in
            guard let input = source.baseAddress, let target = output.baseAddress else { return }
            sums.withUnsafeMutableBufferPointer { sums in
                guard let sum = sums.baseAddress else { return }
                for outputY in 0..<outputHeight {
                    let firstRow = outputY &* factor
                    let rows = min(factor, height &- firstRow)
                    sum.update(repeating: 0, count: outputWidth &* 4)
                    for row in firstRow..<(firstRow &+ rows) {
                        addRow(input + row &* width &* 4, width: width, factor: factor, into: sum)
                    }
                    storeAverages(sum, rows: rows, width: width, factor: factor, outputWidth: outputWidth,
                                  into: target + outputY &* outputWidth &* 4)
                }
            }
        }
        return (pixels, outputWidth, outputHeight)
    }

    /// Adds each block of `factor` pixels of one row to its four sums.
    @inline(__always)
    private static func addRow(_ row: UnsafePointer<UInt8>, width: Int, factor: Int, into sums: UnsafeMutablePointer<UInt32>) {
        var pixel = row
        var block = sums
        var x = 0
        while x < width {
            let end = min(x &+ factor, width)
            var red: UInt32 = 0, green: UInt32 = 0, blue: UInt32 = 0, alpha: UInt32 = 0
            while x < end {
                red &+= UInt32(pixel[0])
                green &+= UInt32(pixel[1])
                blue &+= UInt32(pixel[2])
                alpha &+= UInt32(pixel[3])
                pixel += 4
                x &+= 1
            }
            block[0] &+= red
            block[1] &+= green
            block[2] &+= blue
            block[3] &+= alpha
            block += 4
        }
    }

    /// The sums of one output row divided by their block's pixel count, rounded, as RGBA8.
    ///
    /// A multiply by 2³² / count and a shift stand in for the division: monotonic in the sum, so
    /// a colour sum at most its alpha sum never rounds above it.
    @inline(__always)
    private static func storeAverages(_ sums: UnsafePointer<UInt32>, rows: Int, width: Int, factor: Int, outputWidth: Int,
                                      into target: UnsafeMutablePointer<UInt8>) {
        func reciprocal(_ count: Int) -> UInt64 { ((1 << 32) + UInt64(count) / 2) / UInt64(count) }
        let full = reciprocal(rows &* factor)
        for column in 0..<outputWidth {
            let columns = min(factor, width &- column &* factor)
            let scale = columns == factor ? full : reciprocal(rows &* columns)
            for channel in 0..<4 {
                let index = column &* 4 &+ channel
                let average = (UInt64(sums[index]) &* scale &+ (1 << 31)) >> 32
                target[index] = UInt8(truncatingIfNeeded: min(average, 255))
            }
        }
    }
}
