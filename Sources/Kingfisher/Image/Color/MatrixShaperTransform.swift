import Dispatch
import Foundation

/// A matrix/TRC profile to sRGB conversion of 8-bit RGBA: a 256-entry table per channel to linear
/// light, a 3×3 matrix, and a 16,384-entry table back to sRGB's encoding, in 14-bit fixed point.
///
/// This is what lcms2 computes for such profiles under the relative colorimetric intent (source
/// colorants, then the inverse of sRGB's; no white-point scaling), within ±1 of its 8-bit result, at
/// a fraction of its cost (the loop is ``MatrixShaperLoop``). Alpha is left as it is.
struct MatrixShaperTransform: Sendable {
    /// Steps of linear light: fine enough that one step moves the darkest codes by a fifth of a unit.
    static let steps = 16_384
    /// Images with at least this many pixels are converted on two threads.
    static let parallelPixelCount = 1 << 20

    /// sRGB-encoded 8-bit value of each linear step, the same for every profile.
    static let encode: [UInt8] = (0..<steps).map { step in
        UInt8((ColorMath.encodeSRGB(Double(step) / Double(steps - 1)) * 255).rounded())
    }

    /// Linear light of each 8-bit code in steps, for R, G and B one after the other.
    let input: [UInt16]
    /// The source-to-sRGB matrix in linear light, row by row, 2^14 = 1.
    let matrix: [Int32]
    /// The tables of `input`, `matrix` and `encode` as the per-pixel loop reads them.
    private let loop: MatrixShaperLoop
    /// Whether the conversion changes no 8-bit value (the profile is sRGB in all but name).
    let isIdentity: Bool

    /// The conversion from `profile`; `nil` when its colorants are degenerate or so extreme that the
    /// fixed-point sums could overflow (lcms2 then handles it).
    init?(_ profile: MatrixShaperProfile) {
        let source = (0..<3).map { row in (0..<3).map { column in profile.colorants[column][row] } }
        let target = (0..<3).map { row in (0..<3).map { column in ColorMath.sRGBColorants[column][row] } }
        guard ColorMath.sRGBColorants.count == 3, let targetInverse = ColorMath.invert(target) else { return nil }
        let combined = ColorMath.multiply(targetInverse, source)
        guard combined.allSatisfy({ row in row.allSatisfy(\.isFinite) && row.reduce(0) { $0 + abs($1) } < 7.9 }) else {
            return nil
        }
        let linear = profile.curves.map { curve in (0..<256).map { curve.evaluate(Double($0) / 255) } }
        let last = Double(Self.steps - 1)
        input = linear.joined().map { UInt16(($0 * last).rounded()) }
        matrix = combined.joined().map { Int32(($0 * 16_384).rounded()) }
        guard let loop = MatrixShaperLoop(input: input, matrix: matrix, encode: Self.encode) else { return nil }
        self.loop = loop
        let diagonal = (0..<3).allSatisfy { row in
            (0..<3).allSatisfy { column in abs(combined[row][column] - (row == column ? 1 : 0)) < 0.002 }
        }
        isIdentity = diagonal && linear.allSatisfy { curve in
            curve.enumerated().allSatisfy { abs(ColorMath.encodeSRGB($0.element) * 255 - Double($0.offset)) < 0.5 }
        }
    }

    /// Converts `pixelCount` RGBA pixels at `pixels` in place, on two threads for large images.
    func apply(_ pixels: UnsafeMutableRawBufferPointer, pixelCount: Int) {
        guard let base = pixels.baseAddress, pixels.count / 4 >= pixelCount else { return }
        guard pixelCount >= Self.parallelPixelCount else {
            convert(base, count: pixelCount)
            return
        }
        // The address crosses into the worker as an integer: each half writes only its own pixels.
        let address = UInt(bitPattern: base)
        let half = pixelCount / 2
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            guard let start = UnsafeMutableRawPointer(bitPattern: address) else { return }
            if part == 0 {
                convert(start, count: half)
            } else {
                convert(start + half * 4, count: pixelCount - half)
            }
        }
    }

    /// The per-pixel loop over `count` pixels from `start`.
    func convert(_ start: UnsafeMutableRawPointer, count: Int) {
        loop.run(start, count: count)
    }
}
