import Foundation

/// How interesting each part of a frame looks, on a reduced grid: what smart cropping searches.
///
/// The frame is box-averaged down by a whole factor so its longer side is at most
/// ``longestSide`` cells; each cell then scores the sum of three cues that draw the eye, in the
/// spirit of libvips's "attention" strategy: edge strength (Sobel magnitude of the luma, above a
/// noise floor), skin-tone likelihood (nearness to the skin cluster in the YCbCr chroma plane,
/// for cells neither very dark nor very bright) and saturation (chroma, for mid luma). Colour is
/// read premultiplied, so transparent areas count as black. Scores are whole numbers, so equal
/// regions tie exactly.
struct SaliencyMap {
    /// Cells across.
    let width: Int
    /// Cells down.
    let height: Int
    /// Frame pixels along each side of a cell (the last row and column of cells may be cut short).
    let factor: Int
    /// `width × height` scores, row by row; 0 means nothing of interest.
    let scores: [Int32]

    /// The longest side of the reduced grid.
    static let longestSide = 256

    /// The score of a cell that is fully edge, fully skin or fully saturated, before weighting.
    static let unit: Float = 256

    /// How much more a skin-toned cell counts than a fully saturated or edged one: enough for a
    /// face to outweigh a larger area of bright clothing, tuned on portraits and still lifes.
    static let skinWeight: Float = 3

    /// The saliency map of `frame`.
    init(frame: ImageFrame) {
        let factor = max(1, (max(frame.width, frame.height) + Self.longestSide - 1) / Self.longestSide)
        let width = (frame.width + factor - 1) / factor
        let height = (frame.height + factor - 1) / factor
        var luma = [Float](repeating: 0, count: width * height)
        var colour = [Float](repeating: 0, count: width * height)
        frame.pixels.withUnsafeBufferPointer { pixels in
            luma.withUnsafeMutableBufferPointer { lumaCells in
                colour.withUnsafeMutableBufferPointer { colourCells in
                    Self.reduce(pixels, frameWidth: frame.width, frameHeight: frame.height, factor: factor,
                                width: width, luma: lumaCells, colour: colourCells)
                }
            }
        }
        self.width = width
        self.height = height
        self.factor = factor
        self.scores = Self.combine(luma: luma, colour: colour, width: width, height: height)
    }

    /// Averages each `factor × factor` block of `pixels` and stores its luma and colour cue.
    private static func reduce(_ pixels: UnsafeBufferPointer<UInt8>, frameWidth: Int, frameHeight: Int, factor: Int,
                               width: Int, luma: UnsafeMutableBufferPointer<Float>,
                               colour: UnsafeMutableBufferPointer<Float>) {
        guard let base = pixels.baseAddress else { return }
        var sums = [UInt32](repeating: 0, count: width * 3)
        sums.withUnsafeMutableBufferPointer { sums in
            var cellY = 0
            var top = 0
            while top < frameHeight {
                let bottom = min(top + factor, frameHeight)
                sums.update(repeating: 0)
                for y in top..<bottom {
                    let row = base + y * frameWidth * 4
                    var cellX = 0
                    var left = 0
                    while left < frameWidth {
                        let right = min(left + factor, frameWidth)
                        var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
                        var p = row + left * 4
                        for _ in left..<right {
                            r &+= UInt32(p[0]); g &+= UInt32(p[1]); b &+= UInt32(p[2])
                            p += 4
                        }
                        sums[cellX * 3] &+= r
                        sums[cellX * 3 + 1] &+= g
                        sums[cellX * 3 + 2] &+= b
                        cellX += 1
                        left = right
                    }
                }
                let rows = bottom - top
                for cellX in 0..<width {
                    let columns = min(factor, frameWidth - cellX * factor)
                    let scale = 1 / Float(rows * columns)
                    let r = Float(sums[cellX * 3]) * scale
                    let g = Float(sums[cellX * 3 + 1]) * scale
                    let b = Float(sums[cellX * 3 + 2]) * scale
                    let index = cellY * width + cellX
                    let y = 0.299 * r + 0.587 * g + 0.114 * b
                    luma[index] = y
                    colour[index] = skinTone(r: r, g: g, b: b, luma: y) * skinWeight + saturation(r: r, g: g, b: b, luma: y)
                }
                cellY += 1
                top = bottom
            }
        }
    }

    /// 0...1: how close (`r`, `g`, `b`) is to human skin, by its distance from the centre of the
    /// skin cluster in the Cb-Cr plane (an ellipse around Cb 104, Cr 151), faded out in deep shadow
    /// and near white.
    @inline(__always)
    static func skinTone(r: Float, g: Float, b: Float, luma: Float) -> Float {
        let cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
        let cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
        let u = (cb - 104) / 22
        let v = (cr - 151) / 17
        let closeness = max(0, 1 - (u * u + v * v))
        return closeness * band(luma, low: 40, high: 245)
    }

    /// 0...1: the chroma (largest minus smallest component) of (`r`, `g`, `b`) as a fraction of
    /// 255, faded out toward black and white, where chroma means little.
    @inline(__always)
    static func saturation(r: Float, g: Float, b: Float, luma: Float) -> Float {
        let chroma = max(r, g, b) - min(r, g, b)
        return chroma / 255 * band(luma, low: 24, high: 232)
    }

    /// 1 between `low + 24` and `high − 24`, falling linearly to 0 at `low` and at `high`.
    @inline(__always)
    static func band(_ value: Float, low: Float, high: Float) -> Float {
        min(1, max(0, (value - low) / 24), max(0, (high - value) / 24))
    }

    /// The whole-number score of every cell: Sobel edge strength of `luma` plus the `colour` cue.
    private static func combine(luma: [Float], colour: [Float], width: Int, height: Int) -> [Int32] {
        var scores = [Int32](repeating: 0, count: width * height)
        luma.withUnsafeBufferPointer { luma in
            colour.withUnsafeBufferPointer { colour in
                scores.withUnsafeMutableBufferPointer { scores in
                    for y in 0..<height {
                        let above = max(y - 1, 0) * width
                        let row = y * width
                        let below = min(y + 1, height - 1) * width
                        for x in 0..<width {
                            let left = max(x - 1, 0)
                            let right = min(x + 1, width - 1)
                            let gx = (luma[above + right] + 2 * luma[row + right] + luma[below + right])
                                - (luma[above + left] + 2 * luma[row + left] + luma[below + left])
                            let gy = (luma[below + left] + 2 * luma[below + x] + luma[below + right])
                                - (luma[above + left] + 2 * luma[above + x] + luma[above + right])
                            let edge = min(1, max(0, ((gx * gx + gy * gy).squareRoot() - 12) / 160))
                            scores[row + x] = Int32(((edge + colour[row + x]) * unit).rounded())
                        }
                    }
                }
            }
        }
        return scores
    }
}
