import Foundation

/// High-quality separable resampling (Lanczos-3) of premultiplied RGBA8 bitmaps.
///
/// The work streams output row by output row: the vertical filter mixes whole input rows (each
/// widened to floats once, in a ring of as many rows as the filter spans) into one `Float` row (a
/// flat loop the compiler vectorises), then the horizontal filter turns that row into
/// the output row while it is still in cache. No intermediate image is allocated: besides the
/// output, memory is the ring, two float rows and the filter weights (linear in the sizes). The work is
/// linear in the input's pixel count (a Lanczos window spans 6 × the scale factor input pixels). All four channels are filtered alike, which is the correct maths
/// on premultiplied pixels; Lanczos overshoot is then clamped to 0...255 and colour to at most
/// alpha, so results are always valid premultiplied pixels. A constant image stays exactly constant.
enum Resampler {
    /// `frame` resampled to `width` × `height` pixels, keeping its duration; the frame itself when the
    /// size is unchanged. Both dimensions must be positive.
    ///
    /// A reduction by 3× or more first averages blocks (see ``BoxReduction``) and leaves Lanczos the
    /// last factor of 1.5 to 3.
    static func resample(_ frame: ImageFrame, width: Int, height: Int) -> ImageFrame {
        precondition(width > 0 && height > 0)
        if width == frame.width && height == frame.height { return frame }
        let factor = BoxReduction.factor(width: frame.width, height: frame.height, outputWidth: width, outputHeight: height)
        let pixels = frame.pixels.withUnsafeBufferPointer { source in
            guard factor > 1 else {
                return resample(source, width: frame.width, height: frame.height, toWidth: width, height: height)
            }
            let reduced = BoxReduction.reduce(source, width: frame.width, height: frame.height, factor: factor)
            return reduced.pixels.withUnsafeBufferPointer {
                resample($0, width: reduced.width, height: reduced.height, toWidth: width, height: height)
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frame.duration)
    }

    /// Resamples packed RGBA8 `source` of `width` × `height` to `outputWidth` × `outputHeight`.
    static func resample(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
                         toWidth outputWidth: Int, height outputHeight: Int) -> [UInt8] {
        precondition(width > 0 && height > 0 && outputWidth > 0 && outputHeight > 0)
        precondition(source.count >= width * height * 4)
        let vertical = ResamplingWeights(inputCount: height, outputCount: outputHeight)
        let horizontal = ResamplingWeights(inputCount: width, outputCount: outputWidth)
        let rowLength = width * 4
        let outputRowLength = outputWidth * 4
        // One float row of input width (the vertical result), one of output width (the horizontal one).
        var scratch = [Float](repeating: 0, count: rowLength + outputRowLength)
        // Each horizontal weight in all four lanes, so the inner loop loads it instead of broadcasting.
        let horizontalTaps = horizontal.weights.map { SIMD4<Float>(repeating: $0) }

        // The input rows in use as floats, each converted once however many output rows read it,
        // unless the filter spans so many rows of this width that the ring would pass 16 MB.
        let rows = vertical.stride * rowLength <= FloatRowRing.largestFloatCount
            ? FloatRowRing(rows: vertical.stride, rowLength: rowLength) : nil
        defer { rows?.deallocate() }
        return PixelMemory.bytes(count: outputRowLength * outputHeight) { output in
            guard let sourceBase = source.baseAddress, let outputBase = output.baseAddress else { return }
            scratch.withUnsafeMutableBufferPointer { scratch in
                vertical.withPointers { vStarts, vCounts, vWeights in
                    horizontal.withPointers { hStarts, hCounts, _ in
                        horizontalTaps.withUnsafeBufferPointer { hTaps in
                            guard let mixed = scratch.baseAddress, let hWeights = hTaps.baseAddress else { return }
                            let filtered = mixed + rowLength
                            for y in 0..<outputHeight {
                                let first = vStarts[y]
                                let count = vCounts[y]
                                if let rows {
                                    for row in first..<(first + count) {
                                        rows.load(row, from: sourceBase)
                                    }
                                    mixRows(rows, first: first, count: count, weights: vWeights + y * vertical.stride, into: mixed)
                                } else {
                                    mixByteRows(sourceBase + first * rowLength, rowLength: rowLength, count: count,
                                                weights: vWeights + y * vertical.stride, into: mixed)
                                }
                                let target = outputBase + y * outputRowLength
                                if outputWidth == width {
                                    storeRow(mixed, count: outputRowLength, into: target)
                                } else {
                                    filterRow(mixed, outputWidth: outputWidth, starts: hStarts, counts: hCounts,
                                              weights: hWeights, stride: horizontal.stride, into: filtered)
                                    storeRow(filtered, count: outputRowLength, into: target)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `row[i] = Σ weights[k] · rows[first + k][i]` over `count` consecutive input rows held in `ring`.
    ///
    /// Up to four input rows per sweep cut the loads and stores of `row`; each sweep is a flat loop
    /// that the compiler vectorises.
    @inline(__always)
    private static func mixRows(_ ring: FloatRowRing, first: Int, count: Int,
                                weights: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        let rowLength = ring.rowLength
        var tap = 0
        while tap < count {
            let a = ring.row(first + tap)
            let taps = min(count - tap, 4)
            let accumulate = tap > 0
            switch taps {
            case 4:
                let b = ring.row(first + tap + 1), c = ring.row(first + tap + 2), d = ring.row(first + tap + 3)
                let wa = weights[tap], wb = weights[tap + 1], wc = weights[tap + 2], wd = weights[tap + 3]
                if accumulate {
                    for i in 0..<rowLength { row[i] += (a[i] * wa + b[i] * wb) + (c[i] * wc + d[i] * wd) }
                } else {
                    for i in 0..<rowLength { row[i] = (a[i] * wa + b[i] * wb) + (c[i] * wc + d[i] * wd) }
                }
            case 3:
                let b = ring.row(first + tap + 1), c = ring.row(first + tap + 2)
                let wa = weights[tap], wb = weights[tap + 1], wc = weights[tap + 2]
                if accumulate {
                    for i in 0..<rowLength { row[i] += (a[i] * wa + b[i] * wb) + c[i] * wc }
                } else {
                    for i in 0..<rowLength { row[i] = (a[i] * wa + b[i] * wb) + c[i] * wc }
                }
            case 2:
                let b = ring.row(first + tap + 1)
                let wa = weights[tap], wb = weights[tap + 1]
                if accumulate {
                    for i in 0..<rowLength { row[i] += a[i] * wa + b[i] * wb }
                } else {
                    for i in 0..<rowLength { row[i] = a[i] * wa + b[i] * wb }
                }
            default:
                let wa = weights[tap]
                if accumulate {
                    for i in 0..<rowLength { row[i] += a[i] * wa }
                } else {
                    for i in 0..<rowLength { row[i] = a[i] * wa }
                }
            }
            tap += taps
        }
    }

    /// `row[i] = Σ weights[k] · rows[k][i]` over `count` consecutive input rows starting at `first`,
    /// read as bytes: for filters whose ring of float rows would be too large.
    ///
    /// Up to four input rows per sweep cut the loads and stores of `row`; each sweep is a flat loop
    /// that the compiler vectorises, bytes widened to floats in registers.
    @inline(__always)
    private static func mixByteRows(_ first: UnsafePointer<UInt8>, rowLength: Int, count: Int,
                                weights: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        var tap = 0
        while tap < count {
            let a = first + tap * rowLength
            let taps = min(count - tap, 4)
            let accumulate = tap > 0
            switch taps {
            case 4:
                let b = a + rowLength, c = b + rowLength, d = c + rowLength
                let wa = weights[tap], wb = weights[tap + 1], wc = weights[tap + 2], wd = weights[tap + 3]
                if accumulate {
                    for i in 0..<rowLength {
                        row[i] += (Float(a[i]) * wa + Float(b[i]) * wb) + (Float(c[i]) * wc + Float(d[i]) * wd)
                    }
                } else {
                    for i in 0..<rowLength {
                        row[i] = (Float(a[i]) * wa + Float(b[i]) * wb) + (Float(c[i]) * wc + Float(d[i]) * wd)
                    }
                }
            case 3:
                let b = a + rowLength, c = b + rowLength
                let wa = weights[tap], wb = weights[tap + 1], wc = weights[tap + 2]
                if accumulate {
                    for i in 0..<rowLength { row[i] += (Float(a[i]) * wa + Float(b[i]) * wb) + Float(c[i]) * wc }
                } else {
                    for i in 0..<rowLength { row[i] = (Float(a[i]) * wa + Float(b[i]) * wb) + Float(c[i]) * wc }
                }
            case 2:
                let b = a + rowLength
                let wa = weights[tap], wb = weights[tap + 1]
                if accumulate {
                    for i in 0..<rowLength { row[i] += Float(a[i]) * wa + Float(b[i]) * wb }
                } else {
                    for i in 0..<rowLength { row[i] = Float(a[i]) * wa + Float(b[i]) * wb }
                }
            default:
                let wa = weights[tap]
                if accumulate {
                    for i in 0..<rowLength { row[i] += Float(a[i]) * wa }
                } else {
                    for i in 0..<rowLength { row[i] = Float(a[i]) * wa }
                }
            }
            tap += taps
        }
    }

    /// The horizontal filter over one float row, written as bytes.
    @inline(__always)
    private static func filterRow(_ row: UnsafePointer<Float>, outputWidth: Int, starts: UnsafePointer<Int>,
                                  counts: UnsafePointer<Int>, weights: UnsafePointer<SIMD4<Float>>, stride: Int,
                                  into target: UnsafeMutablePointer<Float>) {
        let output = UnsafeMutableRawPointer(target)
        let raw = UnsafeRawPointer(row)
        for x in 0..<outputWidth {
            let count = counts[x]
            let taps = weights + x * stride
            var offset = starts[x] * 16
            // Four independent sums: one chain of dependent additions would wait on the adder's latency.
            var sum0 = SIMD4<Float>(repeating: 0), sum1 = sum0, sum2 = sum0, sum3 = sum0
            var tap = 0
            while tap + 4 <= count {
                sum0 += raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self) * taps[tap]
                sum1 += raw.loadUnaligned(fromByteOffset: offset &+ 16, as: SIMD4<Float>.self) * taps[tap + 1]
                sum2 += raw.loadUnaligned(fromByteOffset: offset &+ 32, as: SIMD4<Float>.self) * taps[tap + 2]
                sum3 += raw.loadUnaligned(fromByteOffset: offset &+ 48, as: SIMD4<Float>.self) * taps[tap + 3]
                offset &+= 64
                tap &+= 4
            }
            while tap < count {
                sum0 += raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self) * taps[tap]
                offset &+= 16
                tap &+= 1
            }
            output.storeBytes(of: (sum0 + sum1) + (sum2 + sum3), toByteOffset: x * 16, as: SIMD4<Float>.self)
        }
    }

    /// Filtered floats rounded to bytes: clamped to 0...255, then colour lowered to alpha wherever
    /// Lanczos overshoot left it above (premultiplied pixels never have colour above alpha).
    @inline(__always)
    private static func storeRow(_ row: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<UInt8>) {
        // Adding 1.5 × 2^23 leaves the value rounded to the nearest integer in the low mantissa bits:
        // a branch-free, trap-free conversion the compiler vectorises.
        let magic: Float = 12_582_912
        for i in 0..<count {
            let clamped = min(max(row[i], 0), 255)
            target[i] = UInt8(truncatingIfNeeded: (clamped + magic).bitPattern)
        }
        let pixels = count / 4
        for pixel in 0..<pixels {
            let p = target + pixel * 4
            let alpha = p[3]
            if p[0] > alpha || p[1] > alpha || p[2] > alpha {
                p[0] = min(p[0], alpha)
                p[1] = min(p[1], alpha)
                p[2] = min(p[2], alpha)
            }
        }
    }
}
