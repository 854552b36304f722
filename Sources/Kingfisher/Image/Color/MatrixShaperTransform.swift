import Dispatch
import Foundation

/// A matrix/TRC profile to sRGB conversion of 8-bit RGBA, in Swift: a 256-entry table per channel to
/// linear light, a 3×3 matrix, and a 16,384-entry table back to sRGB's encoding.
///
/// This is what lcms2 computes for such profiles under the relative colorimetric intent (source
/// colorants, then the inverse of sRGB's; no white-point scaling), within ±1 of its 8-bit result,
/// at a fraction of its cost. Alpha is left as it is.
struct MatrixShaperTransform: Sendable {
    /// Entries of the linear-to-sRGB table: fine enough that one step moves the darkest codes by
    /// less than a quarter of a unit.
    static let outputSize = 16_384
    /// Images with at least this many pixels are converted on two threads.
    static let parallelPixelCount = 1 << 20

    /// Linear light of each 8-bit code, for R, G and B one after the other.
    private let input: [Float]
    /// The source-to-sRGB matrix in linear light, row by row.
    private let matrix: [Float]
    /// sRGB-encoded 8-bit value of each linear step.
    private let output: [UInt8]
    /// Whether the conversion changes no 8-bit value (the profile is sRGB in all but name).
    let isIdentity: Bool

    /// The conversion from `profile`, or `nil` when its colorants are degenerate.
    init?(_ profile: MatrixShaperProfile) {
        let source = (0..<3).map { row in (0..<3).map { column in profile.colorants[column][row] } }
        let target = (0..<3).map { row in (0..<3).map { column in ColorMath.sRGBColorants[column][row] } }
        guard ColorMath.sRGBColorants.count == 3, let targetInverse = ColorMath.invert(target) else { return nil }
        let combined = ColorMath.multiply(targetInverse, source)
        guard combined.joined().allSatisfy(\.isFinite) else { return nil }
        let linear = profile.curves.map { curve in (0..<256).map { curve.evaluate(Double($0) / 255) } }
        input = linear.joined().map { Float($0) }
        matrix = combined.joined().map { Float($0) }
        let last = Double(Self.outputSize - 1)
        output = (0..<Self.outputSize).map { step in
            UInt8((ColorMath.encodeSRGB(Double(step) / last) * 255).rounded())
        }
        let diagonal = (0..<3).allSatisfy { row in
            (0..<3).allSatisfy { column in abs(combined[row][column] - (row == column ? 1 : 0)) < 0.002 }
        }
        isIdentity = diagonal && linear.allSatisfy { curve in
            curve.enumerated().allSatisfy { abs(ColorMath.encodeSRGB($0.element) * 255 - Double($0.offset)) < 0.5 }
        }
    }

    /// Converts `pixelCount` RGBA pixels at `pixels` in place, on two threads for large images.
    func apply(_ pixels: UnsafeMutableRawBufferPointer, pixelCount: Int) {
        guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self),
              pixels.count >= pixelCount * 4 else { return }
        guard pixelCount >= Self.parallelPixelCount else {
            convert(base, count: pixelCount)
            return
        }
        // The address crosses into the worker as an integer: each half writes only its own pixels.
        let address = UInt(bitPattern: base)
        let half = pixelCount / 2
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            guard let start = UnsafeMutablePointer<UInt8>(bitPattern: address) else { return }
            if part == 0 {
                convert(start, count: half)
            } else {
                convert(start + half * 4, count: pixelCount - half)
            }
        }
    }

    /// The per-pixel loop over `count` pixels from `start`.
    private func convert(_ start: UnsafeMutablePointer<UInt8>, count: Int) {
        input.withUnsafeBufferPointer { input in
            output.withUnsafeBufferPointer { output in
                let m = (matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8])
                let scale = Float(Self.outputSize - 1)
                var pixel = start
                let end = start + count * 4
                while pixel < end {
                    let r = input[Int(pixel[0])]
                    let g = input[256 &+ Int(pixel[1])]
                    let b = input[512 &+ Int(pixel[2])]
                    let x = (m.0 * r + m.1 * g + m.2 * b) * scale
                    let y = (m.3 * r + m.4 * g + m.5 * b) * scale
                    let z = (m.6 * r + m.7 * g + m.8 * b) * scale
                    pixel[0] = output[Int(min(max(x, 0), scale) + 0.5)]
                    pixel[1] = output[Int(min(max(y, 0), scale) + 0.5)]
                    pixel[2] = output[Int(min(max(z, 0), scale) + 0.5)]
                    pixel += 4
                }
            }
        }
    }
}
