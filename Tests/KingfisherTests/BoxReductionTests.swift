import Foundation
import KingfisherTestSupport
import Testing
@testable import Kingfisher

/// The block-averaging first stage of large reductions.
@Suite struct BoxReductionTests {
    @Test("the block size leaves Lanczos at least 1.5 in both directions")
    func factorChoice() {
        #expect(BoxReduction.factor(width: 1020, height: 678, outputWidth: 512, outputHeight: 340) == 1)
        #expect(BoxReduction.factor(width: 2040, height: 1356, outputWidth: 512, outputHeight: 340) == 2)
        #expect(BoxReduction.factor(width: 1920, height: 1080, outputWidth: 200, outputHeight: 113) == 6)
        // The direction that shrinks less decides.
        #expect(BoxReduction.factor(width: 4000, height: 100, outputWidth: 100, outputHeight: 90) == 1)
    }

    @Test("blocks average their pixels, edge blocks only the pixels they have")
    func averages() throws {
        // 3×2 pixels, factor 2: one full block (x 0...1) and one edge block (x 2).
        let pixels: [UInt8] = [
            10, 20, 30, 255, 20, 30, 40, 255, 100, 100, 100, 255,
            30, 40, 50, 255, 41, 50, 60, 255, 50, 60, 70, 255,
        ]
        let reduced = pixels.withUnsafeBufferPointer { BoxReduction.reduce($0, width: 3, height: 2, factor: 2) }
        #expect(reduced.width == 2 && reduced.height == 1)
        // (10+20+30+41)/4 = 25.25 → 25; (20+30+40+50)/4 = 35; (30+40+50+60)/4 = 45; edge: (100+50)/2 = 75, 80, 85.
        #expect(reduced.pixels == [25, 35, 45, 255, 75, 80, 85, 255])
    }

    @Test("premultiplied pixels stay valid and a constant image stays constant")
    func invariants() {
        var generator = SeededGenerator(state: 11)
        var pixels: [UInt8] = []
        for _ in 0..<(37 * 29) {
            let alpha = UInt8(truncatingIfNeeded: generator.next())
            for _ in 0..<3 { pixels.append(UInt8(generator.next() % (UInt64(alpha) + 1))) }
            pixels.append(alpha)
        }
        for factor in [2, 3, 5, 37] {
            let reduced = pixels.withUnsafeBufferPointer { BoxReduction.reduce($0, width: 37, height: 29, factor: factor) }
            for pixel in stride(from: 0, to: reduced.pixels.count, by: 4) {
                let alpha = reduced.pixels[pixel + 3]
                #expect(reduced.pixels[pixel] <= alpha && reduced.pixels[pixel + 1] <= alpha && reduced.pixels[pixel + 2] <= alpha)
            }
        }
        let solid = [UInt8](repeating: 0, count: 50 * 40 * 4).enumerated().map { UInt8([90, 60, 30, 200][$0.offset % 4]) }
        let reduced = solid.withUnsafeBufferPointer { BoxReduction.reduce($0, width: 50, height: 40, factor: 7) }
        #expect(reduced.width == 8 && reduced.height == 6)
        #expect(Set(stride(from: 0, to: reduced.pixels.count, by: 4).map { Array(reduced.pixels[$0..<($0 + 4)]) }) == [[90, 60, 30, 200]])
    }

    @Test("a large reduction through blocks stays close to a Lanczos-only one")
    func closeToLanczos() throws {
        // Smooth content with some texture, 600×400 to 100×67 (factor 6 → blocks of 4).
        let width = 600, height = 400
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8((x * 255) / width)
                pixels[offset + 1] = UInt8((y * 255) / height)
                pixels[offset + 2] = UInt8(128 + Int(60 * sin(Double(x) / 17) * cos(Double(y) / 23)))
            }
        }
        let frame = ImageFrame(unchecked: width, height: height, pixels: pixels)
        let staged = Resampler.resample(frame, width: 100, height: 67)
        let direct = pixels.withUnsafeBufferPointer { Resampler.resample($0, width: width, height: height, toWidth: 100, height: 67) }
        #expect(staged.pixels.count == direct.count)
        let differences = zip(staged.pixels, direct).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(mean < 1.0, "mean difference \(mean)")
        #expect(differences.max() ?? 0 <= 6)
    }
}
