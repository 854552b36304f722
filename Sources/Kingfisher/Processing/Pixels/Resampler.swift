import Foundation

/// High-quality separable resampling (Lanczos-3) of premultiplied RGBA8 bitmaps.
///
/// The work streams output row by output row: the vertical filter mixes whole input rows into one
/// `Float` row (a flat loop the compiler vectorises), then the horizontal filter turns that row into
/// the output row while it is still in cache. No intermediate image is allocated, so memory is one
/// float row besides the output. All four channels are filtered alike, which is the correct maths
/// on premultiplied pixels; Lanczos overshoot is then clamped to 0...255 and colour to at most
/// alpha, so results are always valid premultiplied pixels. A constant image stays exactly constant.
enum Resampler {
    /// `frame` resampled to `width` × `height` pixels, keeping its duration; the frame itself when the
    /// size is unchanged. Both dimensions must be positive.
    static func resample(_ frame: ImageFrame, width: Int, height: Int) -> ImageFrame {
        precondition(width > 0 && height > 0)
        if width == frame.width && height == frame.height { return frame }
        let pixels = frame.pixels.withUnsafeBufferPointer { source in
            resample(source, width: frame.width, height: frame.height, toWidth: width, height: height)
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
        var row = [Float](repeating: 0, count: rowLength)

        return PixelMemory.bytes(count: outputRowLength * outputHeight) { output in
            guard let sourceBase = source.baseAddress, let outputBase = output.baseAddress else { return }
            row.withUnsafeMutableBufferPointer { rowBuffer in
                guard let rowBase = rowBuffer.baseAddress else { return }
                vertical.weights.withUnsafeBufferPointer { verticalWeights in
                    horizontal.weights.withUnsafeBufferPointer { horizontalWeights in
                        horizontal.starts.withUnsafeBufferPointer { horizontalStarts in
                            horizontal.counts.withUnsafeBufferPointer { horizontalCounts in
                                guard let vWeights = verticalWeights.baseAddress,
                                      let hWeights = horizontalWeights.baseAddress,
                                      let hStarts = horizontalStarts.baseAddress,
                                      let hCounts = horizontalCounts.baseAddress
                                else { return }
                                for y in 0..<outputHeight {
                                    mixRows(sourceBase + vertical.starts[y] * rowLength, rowLength: rowLength,
                                            count: vertical.counts[y], weights: vWeights + y * vertical.stride,
                                            into: rowBase)
                                    let target = outputBase + y * outputRowLength
                                    if outputWidth == width {
                                        store(rowBase, count: outputWidth, into: target)
                                    } else {
                                        filterRow(rowBase, outputWidth: outputWidth, starts: hStarts, counts: hCounts,
                                                  weights: hWeights, stride: horizontal.stride, into: target)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `row[i] = Σ weights[k] · rows[k][i]` over `count` consecutive input rows starting at `first`.
    ///
    /// Two rows per sweep halve the loads and stores of `row`; each sweep is a flat loop that the
    /// compiler vectorises, bytes widened to floats in registers.
    @inline(__always)
    private static func mixRows(_ first: UnsafePointer<UInt8>, rowLength: Int, count: Int,
                                weights: UnsafePointer<Float>, into row: UnsafeMutablePointer<Float>) {
        var tap = 0
        if count >= 2 {
            let a = first, b = first + rowLength
            let wa = weights[0], wb = weights[1]
            for i in 0..<rowLength {
                row[i] = Float(a[i]) * wa + Float(b[i]) * wb
            }
            tap = 2
        } else {
            let w = weights[0]
            for i in 0..<rowLength {
                row[i] = Float(first[i]) * w
            }
            tap = 1
        }
        while tap + 1 < count {
            let a = first + tap * rowLength, b = a + rowLength
            let wa = weights[tap], wb = weights[tap + 1]
            for i in 0..<rowLength {
                row[i] += Float(a[i]) * wa + Float(b[i]) * wb
            }
            tap += 2
        }
        if tap < count {
            let a = first + tap * rowLength
            let wa = weights[tap]
            for i in 0..<rowLength {
                row[i] += Float(a[i]) * wa
            }
        }
    }

    /// The horizontal filter over one float row, written as bytes.
    @inline(__always)
    private static func filterRow(_ row: UnsafePointer<Float>, outputWidth: Int, starts: UnsafePointer<Int>,
                                  counts: UnsafePointer<Int>, weights: UnsafePointer<Float>, stride: Int,
                                  into target: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeRawPointer(row)
        for x in 0..<outputWidth {
            let count = counts[x]
            let taps = weights + x * stride
            var offset = starts[x] * 16
            var sum = SIMD4<Float>(repeating: 0)
            for tap in 0..<count {
                sum += raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self) * taps[tap]
                offset &+= 16
            }
            storePixel(sum, into: target + x * 4)
        }
    }

    /// A float row copied out as bytes (the horizontal size did not change).
    @inline(__always)
    private static func store(_ row: UnsafePointer<Float>, count: Int, into target: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeRawPointer(row)
        for x in 0..<count {
            storePixel(raw.loadUnaligned(fromByteOffset: x * 16, as: SIMD4<Float>.self), into: target + x * 4)
        }
    }

    /// Rounds a filtered pixel to bytes: clamped to 0...255, colour no greater than alpha.
    @inline(__always)
    private static func storePixel(_ value: SIMD4<Float>, into target: UnsafeMutablePointer<UInt8>) {
        let alpha = clampedByte(value[3])
        target[0] = min(clampedByte(value[0]), alpha)
        target[1] = min(clampedByte(value[1]), alpha)
        target[2] = min(clampedByte(value[2]), alpha)
        target[3] = alpha
    }

    /// `value` rounded to the nearest byte; below 0 (and NaN) gives 0, above 255 gives 255.
    @inline(__always)
    private static func clampedByte(_ value: Float) -> UInt8 {
        value > 0 ? (value < 254.5 ? UInt8(truncatingIfNeeded: Int32(value + 0.5)) : 255) : 0
    }
}
