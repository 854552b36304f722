import Foundation

/// Unsharp masking of premultiplied RGBA8: each colour channel becomes
/// `original + (original − Gaussian(σ))`, clamped to 0...alpha; alpha is left as it is.
///
/// Up to ``gaussianLimit`` the blur is a true separable Gaussian, its kernel cut at 3σ with
/// 12-bit fixed-point weights that add up exactly, rows blurred into 16-bit intermediates (8
/// fractional bits) kept in a ring of `2·radius + 1` rows, so memory stays small and a constant
/// region comes back bit for bit. Wider blurs use ``BoxBlur``'s three boxes, whose cost does not
/// grow with σ. Pixels beyond the edges repeat the edge pixel.
enum UnsharpMask {
    /// The largest σ blurred with a true Gaussian kernel (19 taps).
    static let gaussianLimit: CGFloat = 3

    /// Bits of the kernel weights: they add up to `1 << weightBits`.
    private static let weightBits = 12

    /// The Gaussian weights for offsets `-radius...radius`, radius `⌈3σ⌉`, summing to 4096; `nil`
    /// when σ is not positive or so small that every weight off the centre rounds to zero.
    static func kernel(sigma: CGFloat) -> [UInt32]? {
        guard sigma > 0, sigma <= gaussianLimit else { return nil }
        let radius = Int((3 * Double(sigma)).rounded(.up))
        let raw = (-radius...radius).map { offset in
            exp(-Double(offset * offset) / (2 * Double(sigma * sigma)))
        }
        let total = raw.reduce(0, +)
        var weights = raw.map { UInt32(($0 / total * Double(1 << weightBits)).rounded()) }
        let sides = weights.reduce(0, +) - weights[radius]
        guard sides > 0 else { return nil }
        weights[radius] = UInt32(1 << weightBits) - sides
        return weights
    }

    /// `frame` sharpened with a blur of deviation `sigma` pixels; `nil` when there is nothing to do
    /// (σ not positive, not a number, or too small to matter).
    static func sharpened(_ frame: ImageFrame, sigma: CGFloat) -> ImageFrame? {
        guard sigma > 0 else { return nil }
        if let weights = kernel(sigma: sigma) {
            return gaussianSharpened(frame, weights: weights)
        }
        guard sigma > gaussianLimit, let plan = BoxBlur.plan(radius: sigma) else { return nil }
        let blurred = BoxBlur.blurred(frame, plan: plan)
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { original in
                blurred.pixels.withUnsafeBufferPointer { blur in
                    var i = 0
                    while i < output.count {
                        let alpha = Int32(original[i + 3])
                        for c in 0..<3 {
                            let value = 2 * Int32(original[i + c]) - Int32(blur[i + c])
                            output[i + c] = UInt8(truncatingIfNeeded: min(max(value, 0), alpha))
                        }
                        output[i + 3] = original[i + 3]
                        i += 4
                    }
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }

    /// The Gaussian route: rows blurred into a ring of 16-bit rows, columns blurred from the ring
    /// and combined with the original row by row.
    private static func gaussianSharpened(_ frame: ImageFrame, weights: [UInt32]) -> ImageFrame {
        let width = frame.width
        let height = frame.height
        let rowBytes = width * 4
        let radius = weights.count / 2
        let ringRows = weights.count
        var ring = [UInt16](repeating: 0, count: ringRows * rowBytes)
        var padded = [UInt8](repeating: 0, count: (width + 2 * radius) * 4)
        var sums = [UInt32](repeating: 0, count: rowBytes)
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { source in
                ring.withUnsafeMutableBufferPointer { ring in
                    guard let ringBase = ring.baseAddress else { return }
                    padded.withUnsafeMutableBufferPointer { padded in
                        sums.withUnsafeMutableBufferPointer { sums in
                            weights.withUnsafeBufferPointer { weights in
                                var rowsReady = 0
                                for y in 0..<height {
                                    while rowsReady <= min(y + radius, height - 1) {
                                        blurRow(source, row: rowsReady, width: width, radius: radius, weights: weights,
                                                padded: padded, sums: sums,
                                                into: ringBase + (rowsReady % ringRows) * rowBytes)
                                        rowsReady += 1
                                    }
                                    blurColumns(ringBase, row: y, height: height, rowBytes: rowBytes, weights: weights, sums: sums)
                                    combine(source, row: y, rowBytes: rowBytes, blurred: sums, into: output)
                                }
                            }
                        }
                    }
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frame.duration)
    }

    /// Row `row` of `source` blurred horizontally into `target`, as values × 256.
    @inline(__always)
    private static func blurRow(_ source: UnsafeBufferPointer<UInt8>, row: Int, width: Int, radius: Int,
                                weights: UnsafeBufferPointer<UInt32>, padded: UnsafeMutableBufferPointer<UInt8>,
                                sums: UnsafeMutableBufferPointer<UInt32>, into target: UnsafeMutablePointer<UInt16>) {
        let rowBytes = width * 4
        let start = row * rowBytes
        for k in 0..<radius {
            for c in 0..<4 {
                padded[k * 4 + c] = source[start + c]
                padded[(radius + width + k) * 4 + c] = source[start + rowBytes - 4 + c]
            }
        }
        for i in 0..<rowBytes {
            padded[radius * 4 + i] = source[start + i]
        }
        for i in 0..<rowBytes {
            sums[i] = 0
        }
        for (k, weight) in weights.enumerated() {
            let offset = k * 4
            for i in 0..<rowBytes {
                sums[i] &+= weight &* UInt32(padded[offset + i])
            }
        }
        let shift = UInt32(weightBits - 8)
        let half: UInt32 = 1 << (shift - 1)
        for i in 0..<rowBytes {
            target[i] = UInt16(truncatingIfNeeded: (sums[i] &+ half) >> shift)
        }
    }

    /// The ring rows around `row` blurred vertically into `sums`, as values × 256 × 4096.
    @inline(__always)
    private static func blurColumns(_ ring: UnsafeMutablePointer<UInt16>, row: Int, height: Int, rowBytes: Int,
                                    weights: UnsafeBufferPointer<UInt32>, sums: UnsafeMutableBufferPointer<UInt32>) {
        let radius = weights.count / 2
        for i in 0..<rowBytes {
            sums[i] = 0
        }
        for (k, weight) in weights.enumerated() {
            let sourceRow = min(max(row + k - radius, 0), height - 1)
            let line = ring + (sourceRow % weights.count) * rowBytes
            for i in 0..<rowBytes {
                sums[i] &+= weight &* UInt32(line[i])
            }
        }
    }

    /// Output row `row`: twice the original minus the blur, colour clamped to alpha, alpha kept.
    @inline(__always)
    private static func combine(_ source: UnsafeBufferPointer<UInt8>, row: Int, rowBytes: Int,
                                blurred: UnsafeMutableBufferPointer<UInt32>, into output: UnsafeMutableBufferPointer<UInt8>) {
        let start = row * rowBytes
        let shift = UInt32(weightBits)
        let half: UInt32 = 1 << (shift - 1)
        var i = 0
        while i < rowBytes {
            let alpha = Int32(source[start + i + 3])
            for c in 0..<3 {
                let blur = Int32(bitPattern: (blurred[i + c] &+ half) >> shift)
                let value = (Int32(source[start + i + c]) * 512 - blur + 128) >> 8
                output[start + i + c] = UInt8(truncatingIfNeeded: min(max(value, 0), alpha))
            }
            output[start + i + 3] = source[start + i + 3]
            i += 4
        }
    }
}
