import Foundation

/// Brings HDR pixels (the PQ or HLG transfer of ITU-R BT.2100) to SDR sRGB, as a browser shows
/// such an image on an ordinary display; AVIF and JPEG XL both decode through it.
///
/// - Levels: SDR reference white is 203 cd/m² (ITU-R BT.2408). PQ code values are absolute
///   (SMPTE ST 2084); HLG is shown on a nominal 1000 cd/m² display (its OOTF with a system gamma of
///   1.2), which puts HLG's 75 % signal at reference white, as BT.2408 intends.
/// - Tone curve: on the largest of R, G and B (so hues keep their ratios), identity up to 0.75 of
///   reference white, then a curve that bends the rest smoothly (same value and slope at the knee)
///   to meet sRGB's 1.0 at 1000 cd/m²; brighter than that clips. So reference white shows at
///   about sRGB 240 and highlights keep their gradation instead of clipping.
/// - Gamut: before tone mapping, the primaries (BT.2020, P3 or BT.709) become sRGB's by matrix,
///   negative components (colours outside sRGB) clipped to 0; after it, anything above 1.
/// - Input: 16-bit straight RGBA (the decoders ask libavif and libjxl for 16 bits when they find
///   PQ or HLG, so the steep PQ curve does not band). Output: 8-bit straight RGBA, alpha rounded.
struct HDRToneMapping: Sendable {
    /// The two HDR transfers, by their H.273 code points.
    enum Transfer: UInt16, Sendable {
        case pq = 16
        case hlg = 18
    }

    /// SDR reference white in cd/m².
    static let referenceWhite = 203.0
    /// The luminance that reaches sRGB's 1.0 (and HLG's nominal display peak), in cd/m².
    static let peak = 1000.0
    /// Where the curve leaves the identity, as a fraction of reference white.
    static let knee = 0.75

    let transfer: Transfer
    /// Linear source RGB to linear sRGB, row-major.
    private let matrix: [Float]

    /// The mapping for H.273 `primaries` and `transfer`; `nil` unless the transfer is PQ or HLG
    /// and the primaries are ones ``CICPProfile/colorants(primaries:)`` knows.
    init?(primaries: UInt16, transfer: UInt16) {
        guard let transfer = Transfer(rawValue: transfer),
              let source = CICPProfile.colorants(primaries: primaries), source.count == 3,
              ColorMath.sRGBColorants.count == 3 else { return nil }
        let columns = { (colorants: [[Double]]) in (0..<3).map { row in (0..<3).map { colorants[$0][row] } } }
        guard let toSRGB = ColorMath.invert(columns(ColorMath.sRGBColorants)) else { return nil }
        let combined = ColorMath.multiply(toSRGB, columns(source))
        self.transfer = transfer
        matrix = combined.flatMap { $0.map(Float.init) }
    }

    /// Converts `pixelCount` pixels of 16-bit straight RGBA from `source` into 8-bit straight
    /// RGBA at `target`.
    func convert(_ source: UnsafeBufferPointer<UInt16>, into target: UnsafeMutableRawBufferPointer, pixelCount: Int) {
        guard source.count >= pixelCount * 4, target.count >= pixelCount * 4,
              let output = target.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let linear = transfer == .pq ? Self.pqLinear : Self.hlgSceneLinear
        let encode = Self.sRGBEncode
        let m = matrix
        let hlgScale = Float(Self.peak / Self.referenceWhite)
        for pixel in 0..<pixelCount {
            let offset = pixel * 4
            var r = linear[Int(source[offset])]
            var g = linear[Int(source[offset + 1])]
            var b = linear[Int(source[offset + 2])]
            if transfer == .hlg {
                // BT.2100's OOTF for a 1000 cd/m² display: Fd = 1000 · Ys^0.2 · E, in reference-white units.
                let luminance = 0.2627 * r + 0.6780 * g + 0.0593 * b
                let gain = luminance > 0 ? hlgScale * Float(pow(Double(luminance), 0.2)) : 0
                r *= gain; g *= gain; b *= gain
            }
            var sr = max(0, m[0] * r + m[1] * g + m[2] * b)
            var sg = max(0, m[3] * r + m[4] * g + m[5] * b)
            var sb = max(0, m[6] * r + m[7] * g + m[8] * b)
            let largest = max(sr, sg, sb)
            if largest > Float(Self.knee) {
                let factor = Self.curve(largest) / largest
                sr *= factor; sg *= factor; sb *= factor
            }
            output[offset] = encode[Self.index(sr)]
            output[offset + 1] = encode[Self.index(sg)]
            output[offset + 2] = encode[Self.index(sb)]
            output[offset + 3] = UInt8((UInt32(source[offset + 3]) * 255 + 32767) / 65535)
        }
    }

    /// The tone curve above the knee, `x` and the result in reference-white units: an extended
    /// Reinhard curve on the part above the knee, reaching 1 at ``peak``.
    static func curve(_ x: Float) -> Float {
        let knee = Float(Self.knee)
        let span = 1 - knee
        let excess = (x - knee) / span
        let whiteExcess = Float((peak / referenceWhite - Self.knee) / (1 - Self.knee))
        let bent = excess * (1 + excess / (whiteExcess * whiteExcess)) / (1 + excess)
        return min(1, knee + span * bent)
    }

    /// The index into ``sRGBEncode`` of a linear value, clamped to 0...1.
    private static func index(_ value: Float) -> Int {
        Int(min(1, value) * Float(encodeSteps - 1) + 0.5)
    }

    private static let encodeSteps = 65_536

    /// Linear 0...1 in 65,536 steps to the 8-bit sRGB value.
    private static let sRGBEncode: [UInt8] = (0..<encodeSteps).map { step in
        UInt8((ColorMath.encodeSRGB(Double(step) / Double(encodeSteps - 1)) * 255).rounded())
    }

    /// ST 2084's EOTF of each 16-bit code value, in reference-white units.
    private static let pqLinear: [Float] = (0..<65_536).map { code in
        Float(pqNits(Double(code) / 65_535) / referenceWhite)
    }

    /// BT.2100 HLG's inverse OETF of each 16-bit code value: scene light, 0...1.
    private static let hlgSceneLinear: [Float] = (0..<65_536).map { code in
        Float(hlgScene(Double(code) / 65_535))
    }

    /// The luminance in cd/m² of a PQ signal `e` (0...1).
    static func pqNits(_ e: Double) -> Double {
        let m1 = 2610.0 / 16_384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(max(0, e), 1 / m2)
        return 10_000 * pow(max(0, p - c1) / (c2 - c3 * p), 1 / m1)
    }

    /// The scene light (0...1) of an HLG signal `e` (0...1).
    static func hlgScene(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        let e = max(0, e)
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }
}
