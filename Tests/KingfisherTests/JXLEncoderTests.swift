import Foundation
import Testing
@testable import Kingfisher

/// JPEG XL encoding through libjxl: lossless round trips are exact, lossy ones stay close, and the
/// settings follow cjxl's.
@Suite struct JXLEncoderTests {
    static func source(_ name: String) throws -> KFCrossPlatformImage {
        try KFCrossPlatformImage(data: Fixtures.data("jxl/\(name)"))
    }

    /// Mean and largest absolute difference over all bytes of two frames of the same size.
    static func error(_ a: ImageFrame, _ b: ImageFrame) -> (mean: Double, max: Int) {
        var total = 0
        var largest = 0
        for (x, y) in zip(a.pixels, b.pixels) {
            let difference = abs(Int(x) - Int(y))
            total += difference
            largest = max(largest, difference)
        }
        return (Double(total) / Double(max(1, a.pixels.count)), largest)
    }

    @Test func losslessRoundTripsAreExact() throws {
        for name in ["source-photo.png", "source-alpha.png"] {
            let image = try Self.source(name)
            for effort in [1, 7] {
                let data = try image.encoded(as: .JXL, options: ImageEncodingOptions(lossless: true, jxlEffort: effort))
                #expect(data.kf.imageFormat == .JXL)
                let back = try KFCrossPlatformImage(data: data)
                #expect(back.firstFrame == image.firstFrame, "\(name) at effort \(effort)")
                #expect(back.isOpaque == image.isOpaque)
            }
        }
    }

    @Test func lossyRoundTripsStayClose() throws {
        let image = try Self.source("source-photo.png")
        var sizes: [Int] = []
        for quality in [0.9, 0.5] as [CGFloat] {
            let data = try image.encoded(as: .JXL, options: ImageEncodingOptions(compressionQuality: quality))
            let back = try KFCrossPlatformImage(data: data)
            let error = Self.error(back.firstFrame, image.firstFrame)
            // Measured over all RGBA bytes of this 40×28 crop: mean 1.79 (largest 75, at a sharp edge)
            // at q 0.9, mean 5.58 (largest 89) at q 0.5.
            #expect(error.mean < (quality > 0.8 ? 2.5 : 7) && error.max < 128, "q \(quality): \(error)")
            sizes.append(data.count)
        }
        #expect(sizes[0] > sizes[1])
        let alpha = try Self.source("source-alpha.png")
        let back = try KFCrossPlatformImage(data: alpha.encoded(as: .JXL))
        #expect(!back.isOpaque && Self.error(back.firstFrame, alpha.firstFrame).mean < 3)
    }

    @Test func lossyAtQualityNinetyDecodesLikeCjxlMinusQNinety() throws {
        // decode-lossy.jxl is `cjxl -d 1.0 -e 7` of the same pixels, and q 90 maps to distance 1.0:
        // the frame data agree, so the pixels do (only cjxl's image header is 3 bytes longer).
        let data = try Self.source("source-photo.png").encoded(as: .JXL, options: ImageEncodingOptions(compressionQuality: 0.9))
        let ours = try KFCrossPlatformImage(data: data)
        let cjxlData = try Fixtures.data("jxl/decode-lossy.jxl")
        let cjxl = try KFCrossPlatformImage(data: cjxlData)
        #expect(ours.firstFrame == cjxl.firstFrame)
        #expect(abs(data.count - cjxlData.count) <= 8)
    }

    /// cjxl 0.7 gives byte-identical files for `-q 10` and `-d 12.65`, so this is its rule below 30 too.
    @Test(arguments: [(1.0, 0.0), (0.9, 1.0), (0.75, 2.35), (0.3, 6.4), (0.1, 12.65), (0.0, 45.4625)] as [(Double, Double)])
    func qualityMapsToCjxlDistance(quality: Double, distance: Double) {
        #expect(abs(Double(JXLEncoder.distance(quality: CGFloat(quality))) - distance) < 1e-4)
    }

    @Test func animationsKeepFramesDurationsAndLoops() throws {
        let decoded = try KFCrossPlatformImage(data: Fixtures.data("jxl/decode-animated.jxl"))
        let animated = try #require(KFCrossPlatformImage(frames: decoded.frames, loopCount: 3))
        let data = try animated.encoded(as: .JXL, options: ImageEncodingOptions(lossless: true, jxlEffort: 3))
        let header = try ImageHeader(data: data)
        #expect(header.frameCount == 4 && header.loopCount == 3)
        let back = try KFCrossPlatformImage(data: data)
        #expect(back.frames == animated.frames && back.loopCount == 3)
        #expect(back.frames.map(\.duration) == [0.04, 0.12, 0.3, 0.07])
    }

    @Test func premultipliedPixelsSurviveLossless() throws {
        // Every alpha with every colour value that premultiplies to something distinct.
        var pixels: [UInt8] = []
        for alpha in stride(from: 0, through: 255, by: 5) {
            for value in stride(from: 0, through: alpha, by: max(1, alpha / 16)) {
                pixels += [UInt8(value), UInt8(alpha - value), UInt8(value / 2), UInt8(alpha)]
            }
        }
        let width = pixels.count / 4
        let image = KFCrossPlatformImage(frame: try #require(ImageFrame(width: width, height: 1, pixels: pixels)))
        let back = try KFCrossPlatformImage(data: image.encoded(as: .JXL, options: ImageEncodingOptions(lossless: true)))
        #expect(back.firstFrame == image.firstFrame)
    }
}
