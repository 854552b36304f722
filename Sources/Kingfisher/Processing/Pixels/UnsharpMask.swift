import Foundation

/// Unsharp masking of premultiplied RGBA8: each colour channel becomes
/// `original + (original − Gaussian(σ))`, clamped to 0...alpha; alpha is left as it is.
///
/// Up to ``gaussianLimit`` the blur is a true separable Gaussian, its kernel cut at 3σ with
/// 12-bit fixed-point weights that add up exactly, rows blurred into 16-bit intermediates (6
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
        let opaque = frame.allOpaque
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { original in
                blurred.pixels.withUnsafeBufferPointer { blur in
                    guard let originalBase = original.baseAddress, let blurBase = blur.baseAddress,
                          let outputBase = output.baseAddress
                    else { return }
                    for i in 0..<output.count {
                        let value = 2 * Int16(originalBase[i]) - Int16(blurBase[i])
                        outputBase[i] = UInt8(truncatingIfNeeded: min(max(value, 0), 255))
                    }
                    if !opaque {
                        clampToAlpha(originalBase, outputBase, count: output.count)
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
        let opaque = frame.allOpaque
        var ring = [UInt16](repeating: 0, count: ringRows * rowBytes)
        var padded = [UInt8](repeating: 0, count: (width + 2 * radius) * 4)
        var sums = [UInt32](repeating: 0, count: chunkBytes)
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { source in
                ring.withUnsafeMutableBufferPointer { ring in
                    padded.withUnsafeMutableBufferPointer { padded in
                        sums.withUnsafeMutableBufferPointer { sums in
                            guard let sourceBase = source.baseAddress, let outputBase = output.baseAddress,
                                  let ringBase = ring.baseAddress, let paddedBase = padded.baseAddress,
                                  let sumsBase = sums.baseAddress
                            else { return }
                            var rowsReady = 0
                            for y in 0..<height {
                                while rowsReady <= min(y + radius, height - 1) {
                                    let row = sourceBase + rowsReady * rowBytes
                                    pad(row, width: width, radius: radius, into: paddedBase)
                                    blurRow(paddedBase, rowBytes: rowBytes, weights: weights, sums: sumsBase,
                                            into: ringBase + (rowsReady % ringRows) * rowBytes)
                                    rowsReady += 1
                                }
                                let ringRow = { (offset: Int) in
                                    UnsafePointer(ringBase + (min(max(y + offset, 0), height - 1) % ringRows) * rowBytes)
                                }
                                let original = sourceBase + y * rowBytes
                                let target = outputBase + y * rowBytes
                                for start in stride(from: 0, to: rowBytes, by: chunkBytes) {
                                    let count = min(chunkBytes, rowBytes - start)
                                    begin(ringRow(0) + start, weight: weights[radius], into: sumsBase, count: count)
                                    for k in 0..<radius {
                                        accumulate(ringRow(k - radius) + start, ringRow(radius - k) + start,
                                                   weight: weights[k], into: sumsBase, count: count)
                                    }
                                    combine(original + start, blurred: sumsBase, into: target + start, count: count)
                                }
                                if !opaque {
                                    clampToAlpha(original, target, count: rowBytes)
                                }
                            }
                        }
                    }
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frame.duration)
    }

    /// Fractional bits of the intermediate rows: 6, so the sum of two fits in 15 bits and the
    /// vertical multiply-adds can use 16-bit SIMD multiplies (SSE2's `pmaddwd`).
    private static let intermediateBits = 6

    /// Bytes of a row worked on at a time, so the 32-bit sums stay in the first-level cache.
    private static let chunkBytes = 1024

    /// `row` with `radius` copies of its first pixel before it and of its last after it.
    @inline(__always)
    private static func pad(_ row: UnsafePointer<UInt8>, width: Int, radius: Int, into padded: UnsafeMutablePointer<UInt8>) {
        let rowBytes = width * 4
        for k in 0..<radius {
            (padded + k * 4).update(from: row, count: 4)
            (padded + (radius + width + k) * 4).update(from: row + rowBytes - 4, count: 4)
        }
        (padded + radius * 4).update(from: row, count: rowBytes)
    }

    /// A padded row blurred horizontally into `target`, as values × 64.
    @inline(__always)
    private static func blurRow(_ padded: UnsafePointer<UInt8>, rowBytes: Int, weights: [UInt32],
                                sums: UnsafeMutablePointer<UInt32>, into target: UnsafeMutablePointer<UInt16>) {
        let radius = weights.count / 2
        let shift = UInt32(weightBits - intermediateBits)
        let half: UInt32 = 1 << (shift - 1)
        for start in stride(from: 0, to: rowBytes, by: chunkBytes) {
            let count = min(chunkBytes, rowBytes - start)
            let centre = padded + radius * 4 + start
            let w = weights[radius] & 0x7FFF
            for i in 0..<count {
                sums[i] = w &* UInt32(centre[i])
            }
            for k in 0..<radius {
                // Weights stay below 2^15 and so do sums of two bytes; saying so lets the multiply
                // use 16-bit lanes. The kernel is symmetric: each weight takes a pixel from each side.
                let w = weights[k] & 0x7FFF
                let left = padded + k * 4 + start
                let right = padded + (2 * radius - k) * 4 + start
                for i in 0..<count {
                    sums[i] &+= w &* (UInt32(left[i]) &+ UInt32(right[i]))
                }
            }
            let output = target + start
            for i in 0..<count {
                output[i] = UInt16(truncatingIfNeeded: (sums[i] &+ half) >> shift)
            }
        }
    }

    /// `sums` set to `weight ×` one intermediate row.
    @inline(__always)
    private static func begin(_ line: UnsafePointer<UInt16>, weight: UInt32, into sums: UnsafeMutablePointer<UInt32>,
                              count: Int) {
        let w = weight & 0x7FFF
        for i in 0..<count {
            sums[i] = w &* UInt32(line[i] & 0x3FFF)
        }
    }

    /// `weight ×` the sum of two intermediate rows added to `sums`.
    @inline(__always)
    private static func accumulate(_ first: UnsafePointer<UInt16>, _ second: UnsafePointer<UInt16>, weight: UInt32,
                                   into sums: UnsafeMutablePointer<UInt32>, count: Int) {
        let w = weight & 0x7FFF
        for i in 0..<count {
            sums[i] &+= w &* (UInt32(first[i] & 0x3FFF) &+ UInt32(second[i] & 0x3FFF))
        }
    }

    /// One output row, every channel alike: `2 × original − blur`, clamped to 0...255. Alpha comes
    /// back unchanged wherever the alpha around it is constant, so an opaque row needs no more.
    @inline(__always)
    private static func combine(_ original: UnsafePointer<UInt8>, blurred: UnsafePointer<UInt32>,
                                into target: UnsafeMutablePointer<UInt8>, count: Int) {
        let shift = Int32(weightBits)
        let half = Int32(1) << (shift - 1)
        let scale = Int32(intermediateBits)
        for i in 0..<count {
            let blur = (Int32(bitPattern: blurred[i]) &+ half) >> shift
            let value = ((Int32(original[i]) << (scale + 1)) &- blur &+ (1 << (scale - 1))) >> scale
            target[i] = UInt8(truncatingIfNeeded: min(max(value, 0), 255))
        }
    }

    /// Alpha restored from `original` and each colour channel of `target` limited to it.
    @inline(__always)
    private static func clampToAlpha(_ original: UnsafePointer<UInt8>, _ target: UnsafeMutablePointer<UInt8>, count: Int) {
        var i = 0
        while i < count {
            let alpha = original[i + 3]
            target[i] = min(target[i], alpha)
            target[i + 1] = min(target[i + 1], alpha)
            target[i + 2] = min(target[i + 2], alpha)
            target[i + 3] = alpha
            i += 4
        }
    }
}
