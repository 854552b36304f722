import Foundation
import Testing
@testable import Kingfisher

/// PQ and HLG AVIF and JPEG XL files (see `Fixtures/hdr/make-fixtures.sh`) decode to the same SDR
/// sRGB, as the documented tone mapping says.
///
/// Every fixture is eight 8×8 patches, BT.2020: grey at 0, 50, 100, 150, 203, 400 and 1000 cd/m²,
/// then the BT.2020 equivalent of linear sRGB (0.5, 0.25, 0.1) × 203 cd/m².
@Suite struct HDRToneMappingTests {
    static let nits: [Double] = [0, 50, 100, 150, 203, 400, 1000]

    /// sRGB's encoding of linear `v`, to 8 bits (IEC 61966-2-1, written out again here).
    static func sRGB8(_ v: Double) -> Int {
        let clamped = min(1, max(0, v))
        let encoded = clamped <= 0.0031308 ? clamped * 12.92 : 1.055 * pow(clamped, 1 / 2.4) - 0.055
        return Int((encoded * 255).rounded())
    }

    /// The documented curve, in reference-white (203 cd/m²) units: identity to 0.75, then an
    /// extended Reinhard curve over the excess that reaches 1 at 1000 cd/m².
    static func toneMapped(_ x: Double) -> Double {
        let knee = 0.75
        guard x > knee else { return x }
        let excess = (x - knee) / (1 - knee)
        let white = (1000 / 203 - knee) / (1 - knee)
        return min(1, knee + (1 - knee) * excess * (1 + excess / (white * white)) / (1 + excess))
    }

    /// What each patch should show: R, G, B.
    static var expected: [[Int]] {
        nits.map { n in Array(repeating: sRGB8(toneMapped(n / 203)), count: 3) } + [[0.5, 0.25, 0.1].map(sRGB8)]
    }

    static func patches(_ image: KFCrossPlatformImage) -> [[Int]] {
        (0..<8).map { index in
            guard let p = image.firstFrame.pixel(x: index * 8 + 4, y: 4) else { return [] }
            return [Int(p.r), Int(p.g), Int(p.b)]
        }
    }

    static func largestError(_ got: [[Int]], _ want: [[Int]]) -> Int {
        zip(got, want).flatMap { zip($0, $1).map { abs($0 - $1) } }.max() ?? .max
    }

    @Test func theExpectedValuesFollowTheDocumentedLevels() {
        let values = Self.expected.prefix(Self.nits.count).map { $0[0] }
        // Below the knee the curve is the identity: 100 cd/m² is 0.4926 of reference white, sRGB 186.
        #expect(values[1] == 136 && values[2] == 186 && values[3] == 223)
        // Reference white sits a little below sRGB white, 1000 cd/m² reaches it.
        #expect(values[4] == 240 && values[6] == 255)
        #expect(values == values.sorted())
    }

    @Test(arguments: ["pq-lossless.avif", "hlg-lossless.avif", "pq-lossless.jxl", "hlg-lossless.jxl"])
    func losslessFilesShowTheToneMappedPatches(name: String) throws {
        let image = try KFCrossPlatformImage(data: Fixtures.data("hdr/\(name)"))
        #expect(image.pixelWidth == 64 && image.pixelHeight == 8)
        let got = Self.patches(image)
        #expect(Self.largestError(got, Self.expected) <= 1, "\(name): \(got) vs \(Self.expected)")
    }

    @Test func aLossyXYBFileIsToneMappedToo() throws {
        let image = try KFCrossPlatformImage(data: Fixtures.data("hdr/pq-lossy.jxl"))
        let got = Self.patches(image)
        #expect(Self.largestError(got, Self.expected) <= 2, "\(got) vs \(Self.expected)")
    }

    @Test func avifAndJPEGXLGiveTheSamePixels() throws {
        for transfer in ["pq", "hlg"] {
            let avif = try KFCrossPlatformImage(data: Fixtures.data("hdr/\(transfer)-lossless.avif"))
            let jxl = try KFCrossPlatformImage(data: Fixtures.data("hdr/\(transfer)-lossless.jxl"))
            let comparison = try #require(PixelComparison(avif.firstFrame, jxl.firstFrame))
            #expect(comparison.maxError <= 1, "\(transfer): \(comparison.maxError)")
        }
    }

    @Test func keepingSourceColoursLeavesThePQSignal() throws {
        let keep = ImageCreatingOptions(keepsSourceColors: true)
        for name in ["pq-lossless.avif", "pq-lossless.jxl"] {
            let image = try KFCrossPlatformImage(data: Fixtures.data("hdr/\(name)"), options: keep)
            // 100 cd/m² is PQ signal 0.5081, stored as is.
            #expect(abs(Self.patches(image)[2][1] - 130) <= 1, "\(name)")
        }
    }

    @Test func otherTransfersAreNotToneMapped() {
        #expect(HDRToneMapping(primaries: 9, transfer: 16) != nil)
        #expect(HDRToneMapping(primaries: 9, transfer: 18) != nil)
        #expect(HDRToneMapping(primaries: 9, transfer: 14) == nil)
        #expect(HDRToneMapping(primaries: 22, transfer: 16) == nil)
    }
}
