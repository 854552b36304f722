import Foundation
import Testing
@testable import Kingfisher

/// AVIF encoding, checked by decoding the result with our decoder (during development the files
/// were also checked with avifdec).
@Suite struct AVIFEncoderTests {
    /// Mean absolute difference over every byte.
    private func meanDifference(_ a: ImageFrame, _ b: ImageFrame) -> Double {
        guard a.pixels.count == b.pixels.count, !a.pixels.isEmpty else { return .infinity }
        let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(a.pixels.count)
    }

    @Test func qualityMapsToOneQuantizer() {
        #expect(AVIFCodec.quantizer(for: 1) == 0)
        #expect(AVIFCodec.quantizer(for: 0.9) == 6)
        #expect(AVIFCodec.quantizer(for: 0.5) == 32)
        #expect(AVIFCodec.quantizer(for: 0) == 63)
        #expect(AVIFCodec.quantizer(for: -3) == 63 && AVIFCodec.quantizer(for: 7) == 0)
        #expect(AVIFCodec.quantizer(for: .nan) == 6)
    }

    @Test func anOpaqueStillRoundTrips() throws {
        let source = try AVIFFixtures.reference("still8")
        let encoded = try KFCrossPlatformImage(frame: source).encoded(as: .AVIF, options: ImageEncodingOptions(compressionQuality: 1))
        #expect(encoded.kf.imageFormat == .AVIF)
        let session = try AVIFDecodingSession(data: encoded, options: ImageCreatingOptions())
        #expect(!session.hasAlpha && session.frameCount == 1)
        #expect(session.profile == .cicp(colorPrimaries: 1, transferCharacteristics: 13))
        let decoded = try KFCrossPlatformImage(data: encoded)
        #expect(decoded.isOpaque && decoded.pixelWidth == 48 && decoded.pixelHeight == 32)
        #expect(meanDifference(decoded.firstFrame, source) < 3)
    }

    @Test func qualityAndSpeedChangeTheOutput() throws {
        let source = KFCrossPlatformImage(frame: try AVIFFixtures.reference("still8"))
        let best = try source.encoded(as: .AVIF, options: ImageEncodingOptions(compressionQuality: 1, avifSpeed: 10))
        let worst = try source.encoded(as: .AVIF, options: ImageEncodingOptions(compressionQuality: 0, avifSpeed: 10))
        #expect(worst.count < best.count)
        let decoded = try KFCrossPlatformImage(data: worst)
        #expect(meanDifference(decoded.firstFrame, source.firstFrame) > meanDifference(
            try KFCrossPlatformImage(data: best).firstFrame, source.firstFrame))
    }

    @Test func alphaIsEncodedFromPremultipliedPixels() throws {
        let source = try AVIFFixtures.reference("alpha")
        let encoded = try KFCrossPlatformImage(frame: source).encoded(as: .AVIF, options: ImageEncodingOptions(compressionQuality: 1))
        #expect(try AVIFDecodingSession(data: encoded, options: ImageCreatingOptions()).hasAlpha)
        let decoded = try KFCrossPlatformImage(data: encoded)
        #expect(!decoded.isOpaque)
        #expect(meanDifference(decoded.firstFrame, source) < 3)
        // Alpha itself is coded at quantizer 0: exact.
        let alphas = { (frame: ImageFrame) in stride(from: 3, to: frame.pixels.count, by: 4).map { frame.pixels[$0] } }
        #expect(alphas(decoded.firstFrame) == alphas(source))
    }

    @Test func severalFramesMakeASequence() throws {
        let frames = try (0..<4).map { index in
            try AVIFFixtures.reference("anim-\(index)").withDuration([0.1, 0.25, 0.04, 0.5][index])
        }
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 0))
        let encoded = try animation.encoded(as: .AVIF, options: ImageEncodingOptions(compressionQuality: 0.95, avifSpeed: 10))
        let header = try ImageHeader(data: encoded)
        #expect(header.frameCount == 4)
        let decoded = try KFCrossPlatformImage(data: encoded)
        #expect(decoded.frames.count == 4)
        for (index, frame) in decoded.frames.enumerated() {
            #expect(abs(frame.duration - frames[index].duration) < 1e-9)
            #expect(meanDifference(frame, frames[index]) < 3)
        }
    }

    @Test func oddSizesAndOnePixel() throws {
        for (width, height) in [(1, 1), (3, 5), (17, 2)] {
            let pixels: [UInt8] = (0..<(width * height)).flatMap { [UInt8($0 * 37 % 256), 90, 200, 255] as [UInt8] }
            let frame = try #require(ImageFrame(width: width, height: height, pixels: pixels))
            let decoded = try KFCrossPlatformImage(data: KFCrossPlatformImage(frame: frame).encoded(as: .AVIF))
            #expect(decoded.pixelWidth == width && decoded.pixelHeight == height)
        }
    }
}
