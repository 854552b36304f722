import Foundation
import Testing
@testable import Kingfisher

@Suite struct WebPCodecTests {
    // MARK: - Fixtures made here

    /// Three solid frames of 0.1, 0.25 and 0.5 s that loop twice.
    static func threeFrameAnimation(width: Int = 32, height: Int = 24) throws -> KFCrossPlatformImage {
        let colors = [RGBA8(r: 255, g: 0, b: 0, a: 255), RGBA8(r: 0, g: 200, b: 0, a: 255), RGBA8(r: 10, g: 20, b: 240, a: 255)]
        let durations: [TimeInterval] = [0.1, 0.25, 0.5]
        let frames = zip(colors, durations).map { color, duration in
            TestImages.solid(width: width, height: height, color).firstFrame.withDuration(duration)
        }
        return try #require(KFCrossPlatformImage(frames: frames, loopCount: 2))
    }

    static func encodedAnimation() throws -> Data {
        try threeFrameAnimation().encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
    }

    static func isLimitError(_ error: any Error) -> Bool {
        if case KingfisherError.processorError(reason: .imageLimitExceeded(format: .WebP, violation: _)) = error { return true }
        return false
    }

    // MARK: - Still images

    @Test func losslessOpaqueRoundTripIsExact() throws {
        let image = TestImages.gradient(width: 97, height: 61)
        let data = try #require(image.kf.webpRepresentation(compressionQuality: 0.9, lossless: true))
        #expect(data.kf.imageFormat == .WebP)
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(decoded.pixelWidth == 97 && decoded.pixelHeight == 61)
        #expect(decoded.isOpaque)
        #expect(!decoded.isAnimated)
        #expect(decoded.firstFrame.pixels == image.firstFrame.pixels)
    }

    @Test func losslessAlphaRoundTripIsWithinOne() throws {
        let image = TestImages.gradient(width: 80, height: 50, alpha: true)
        #expect(!image.isOpaque)
        let data = try image.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(!decoded.isOpaque)
        #expect(decoded.pixelWidth == 80 && decoded.pixelHeight == 50)
        // Straight alpha in the file, premultiplied by libwebp (which truncates) on the way out.
        #expect(TestImages.maxDifference(decoded.firstFrame, image.firstFrame) <= 1)
        // Alpha itself is stored losslessly.
        for index in stride(from: 3, to: image.firstFrame.pixels.count, by: 4) where decoded.firstFrame.pixels[index] != image.firstFrame.pixels[index] {
            Issue.record("alpha differs at byte \(index)")
            break
        }
    }

    @Test func lossyRoundTripIsClose() throws {
        let image = TestImages.gradient(width: 128, height: 96)
        let data = try image.encoded(as: .WebP, options: ImageEncodingOptions(compressionQuality: 0.9))
        let decoded = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(scale: 2))
        #expect(decoded.pixelWidth == 128 && decoded.pixelHeight == 96)
        #expect(decoded.size == CGSize(width: 64, height: 48))
        #expect(decoded.isOpaque)
        // Measured: 0.83 at quality 0.9 (1.29 at 0.5) with libwebp 1.2.4.
        let mean = TestImages.meanDifference(decoded.firstFrame, image.firstFrame)
        #expect(mean < 1.5, "mean difference \(mean)")
        // Lower quality makes a smaller file.
        let small = try image.encoded(as: .WebP, options: ImageEncodingOptions(compressionQuality: 0.2))
        #expect(small.count < data.count)
    }

    @Test func lossyAlphaKeepsTransparency() throws {
        let image = TestImages.gradient(width: 64, height: 48, alpha: true)
        let data = try image.encoded(as: .WebP, options: ImageEncodingOptions(compressionQuality: 0.9))
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(!decoded.isOpaque)
        // The left column is fully transparent, the right one opaque.
        #expect(decoded.firstFrame.pixel(x: 0, y: 10)?.a == 0)
        #expect(decoded.firstFrame.pixel(x: 63, y: 10)?.a == 255)
        // Measured: 0.53 at quality 0.9.
        #expect(TestImages.meanDifference(decoded.firstFrame, image.firstFrame) < 1.5)
    }

    @Test func probeReadsStillHeaders() throws {
        let opaque = try TestImages.gradient(width: 40, height: 30).encoded(as: .WebP)
        let header = try ImageHeader(data: opaque)
        #expect(header.format == .WebP)
        #expect(header.pixelWidth == 40 && header.pixelHeight == 30)
        #expect(header.frameCount == 1 && header.loopCount == 0)
        #expect(!header.hasAlpha)

        let alpha = try TestImages.gradient(width: 40, height: 30, alpha: true).encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        #expect(try ImageHeader(data: alpha).hasAlpha)
    }

    @Test func truncatedHeaderIsAKingfisherError() throws {
        let data = try TestImages.gradient(width: 40, height: 30).encoded(as: .WebP)
        let truncated = Data(data.prefix(20))
        #expect(truncated.kf.imageFormat == .WebP)
        #expect(throws: KingfisherError.self) { try ImageHeader(data: truncated) }
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: truncated) }
    }

    @Test func truncatedDataSaysSo() throws {
        let data = try TestImages.gradient(width: 64, height: 64).encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        do {
            _ = try KFCrossPlatformImage(data: Data(data.prefix(data.count / 2)))
            Issue.record("half a file decoded")
        } catch let error as KingfisherError {
            guard case .processorError(reason: .decodingFailed(format: .WebP, description: let description)) = error else {
                Issue.record("unexpected reason \(error)")
                return
            }
            #expect(description.contains("truncated"), "\(description)")
        }
    }

    @Test func tooWideImagesAreEncodingErrors() throws {
        // WebP allows 16383 pixels a side.
        let wide = TestImages.solid(width: 16_384, height: 1, RGBA8(r: 1, g: 2, b: 3, a: 255))
        for lossless in [false, true] {
            do {
                _ = try wide.encoded(as: .WebP, options: ImageEncodingOptions(lossless: lossless))
                Issue.record("a 16384-pixel-wide WebP was written")
            } catch {
                guard case KingfisherError.processorError(reason: .encodingFailed(format: .WebP, description: _)) = error else {
                    Issue.record("unexpected error \(error)")
                    continue
                }
            }
        }
        let frame = wide.firstFrame.withDuration(0.1)
        let animation = try #require(KFCrossPlatformImage(frames: [frame, frame]))
        #expect(throws: KingfisherError.self) { try animation.encoded(as: .WebP) }
        #expect(animation.kf.webpRepresentation() == nil)
    }

    // MARK: - Animation

    @Test func animationRoundTrip() throws {
        let data = try Self.encodedAnimation()
        let decoded = try KFCrossPlatformImage(data: data)
        try #require(decoded.frames.count == 3)
        #expect(decoded.loopCount == 2)
        #expect(decoded.isOpaque)
        #expect(decoded.pixelWidth == 32 && decoded.pixelHeight == 24)
        for (frame, expected) in zip(decoded.frames, [0.1, 0.25, 0.5]) {
            #expect(abs(frame.duration - expected) <= 0.001, "duration \(frame.duration), expected \(expected)")
        }
        #expect(abs(decoded.duration - 0.85) <= 0.003)
        let original = try Self.threeFrameAnimation()
        for (frame, expected) in zip(decoded.frames, original.frames) {
            #expect(frame.pixels == expected.pixels)
        }
    }

    @Test func animationWithAlphaAndForeverLoop() throws {
        let first = TestImages.gradientFrame(width: 20, height: 16, alpha: true, seed: 1).withDuration(0.2)
        let second = TestImages.gradientFrame(width: 20, height: 16, alpha: true, seed: 2).withDuration(0.3)
        let image = try #require(KFCrossPlatformImage(frames: [first, second], loopCount: 0))
        let decoded = try KFCrossPlatformImage(data: try image.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true)))
        try #require(decoded.frames.count == 2)
        #expect(decoded.loopCount == 0)
        #expect(!decoded.isOpaque)
        #expect(TestImages.maxDifference(decoded.frames[0], first) <= 1)
        #expect(TestImages.maxDifference(decoded.frames[1], second) <= 1)
    }

    @Test func shortDelaysShowForATenthOfASecond() throws {
        let frames = [RGBA8(r: 255, g: 0, b: 0, a: 255), RGBA8(r: 0, g: 0, b: 255, a: 255)].map {
            TestImages.solid(width: 8, height: 8, $0).firstFrame.withDuration(0.01)
        }
        let image = try #require(KFCrossPlatformImage(frames: frames))
        let decoded = try KFCrossPlatformImage(data: try image.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true)))
        #expect(decoded.frames.map(\.duration) == [0.1, 0.1])
        #expect(WebPCodec.frameDuration(milliseconds: 12) == 0.012)
        #expect(WebPCodec.frameDuration(milliseconds: 11) == 0.1)
        #expect(WebPCodec.frameDuration(milliseconds: 0) == 0.1)
    }

    @Test func onlyFirstFrameGivesAStillImage() throws {
        let data = try Self.encodedAnimation()
        let decoded = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(onlyFirstFrame: true))
        #expect(!decoded.isAnimated)
        #expect(decoded.loopCount == 0)
        #expect(decoded.firstFrame.duration == 0)
        #expect(decoded.firstFrame.pixel(x: 5, y: 5) == RGBA8(r: 255, g: 0, b: 0, a: 255))
    }

    @Test func probeReadsAnimationHeader() throws {
        let header = try ImageHeader(data: try Self.encodedAnimation())
        #expect(header.format == .WebP)
        #expect(header.frameCount == 3)
        #expect(header.loopCount == 2)
        #expect(header.pixelWidth == 32 && header.pixelHeight == 24)
    }

    // MARK: - Decode-time scaling

    @Test func scalingRule() {
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 100, height: 50)) == (100, 75))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 50, height: 100)) == (134, 100))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 0, height: 50)) == (67, 50))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 100, height: -1)) == (100, 75))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 0, height: 0)) == (400, 300))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 500, height: 10)) == (400, 300))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: 99.2, height: 0)) == (100, 75))
        #expect(WebPCodec.scaledSize(width: 400, height: 300, minimum: CGSize(width: CGFloat.nan, height: .infinity)) == (400, 300))
        #expect(WebPCodec.scaledSize(width: 1000, height: 1, minimum: CGSize(width: 1, height: 0)) == (1, 1))
    }

    @Test func decodeTimeScaling() throws {
        let data = try TestImages.gradient(width: 400, height: 300).encoded(as: .WebP)
        let scaled = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 100, height: 50)))
        #expect(scaled.pixelWidth == 100 && scaled.pixelHeight == 75)
        #expect(scaled.isOpaque)
        // Scaling a smooth gradient keeps its corners' colours.
        let full = try KFCrossPlatformImage(data: data)
        let corner = try #require(scaled.firstFrame.pixel(x: 99, y: 74))
        let fullCorner = try #require(full.firstFrame.pixel(x: 399, y: 299))
        #expect(abs(Int(corner.r) - Int(fullCorner.r)) < 12 && abs(Int(corner.g) - Int(fullCorner.g)) < 12)

        let tooBig = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 800, height: 20)))
        #expect(tooBig.pixelWidth == 400 && tooBig.pixelHeight == 300)

        let heightOnly = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 0, height: 50)))
        #expect(heightOnly.pixelWidth == 67 && heightOnly.pixelHeight == 50)
    }

    @Test func losslessAlphaScales() throws {
        let data = try TestImages.gradient(width: 200, height: 100, alpha: true).encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        let scaled = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 50, height: 0)))
        #expect(scaled.pixelWidth == 50 && scaled.pixelHeight == 25)
        #expect(!scaled.isOpaque)
        // Premultiplied output: no colour channel exceeds alpha.
        let pixels = scaled.firstFrame.pixels
        var valid = true
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            let alpha = pixels[offset + 3]
            valid = valid && max(pixels[offset], pixels[offset + 1], pixels[offset + 2]) <= alpha
        }
        #expect(valid)
    }

    @Test func animationsIgnoreMinimumPixelSize() throws {
        let decoded = try KFCrossPlatformImage(data: try Self.encodedAnimation(), options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 8, height: 8)))
        #expect(decoded.frames.count == 3)
        #expect(decoded.pixelWidth == 32 && decoded.pixelHeight == 24)
    }

    // MARK: - Limits

    @Test func frameLimitRefusesLargeImage() throws {
        let data = try TestImages.gradient(width: 64, height: 64).encoded(as: .WebP)
        let options = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 1000))
        do {
            _ = try KFCrossPlatformImage(data: data, options: options)
            Issue.record("a 64×64 image decoded under a 1000-pixel limit")
        } catch {
            #expect(Self.isLimitError(error), "\(error)")
        }
    }

    @Test func frameCountLimitRefusesAnimation() throws {
        let data = try Self.encodedAnimation()
        let options = ImageCreatingOptions(limits: ImageDecodingLimits(maxFrameCount: 2))
        do {
            _ = try KFCrossPlatformImage(data: data, options: options)
            Issue.record("a 3-frame animation decoded under a 2-frame limit")
        } catch {
            #expect(Self.isLimitError(error), "\(error)")
        }
        // Only the first frame is decoded, so the frame-count limit does not apply.
        let first = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(onlyFirstFrame: true, limits: options.limits))
        #expect(!first.isAnimated)
        // The canvas is checked against the per-frame limit before libwebp allocates it.
        let small = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 100))
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: data, options: small) }
    }

    // MARK: - Robustness

    enum DamagedKind: String, CaseIterable, Sendable {
        case lossy, losslessAlpha, animated
    }

    /// Files with real bitstream data to damage (solid colours would compress to almost nothing).
    static func fileToDamage(_ kind: DamagedKind) throws -> Data {
        switch kind {
        case .lossy:
            return try TestImages.gradient(width: 96, height: 64).encoded(as: .WebP, options: ImageEncodingOptions(compressionQuality: 0.8))
        case .losslessAlpha:
            return try TestImages.gradient(width: 48, height: 40, alpha: true).encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        case .animated:
            // Lossy frames with alpha: ANMF chunks holding ALPH and VP8 chunks.
            let frames = (0..<3).map { TestImages.gradientFrame(width: 40, height: 32, alpha: true, seed: $0 * 3).withDuration(0.1) }
            let image = try #require(KFCrossPlatformImage(frames: frames, loopCount: 3))
            return try image.encoded(as: .WebP, options: ImageEncodingOptions(compressionQuality: 0.7))
        }
    }

    @Test(arguments: DamagedKind.allCases)
    func damagedFilesOnlyThrowKingfisherErrors(kind: DamagedKind) throws {
        let data = try Self.fileToDamage(kind)
        #expect(try KFCrossPlatformImage(data: data).frames.count == (kind == .animated ? 3 : 1))
        let inputs = Mutations.damaged(data, count: 3000)
        let result = Mutations.decodeAll(inputs)
        #expect(result.foreignErrors == 0)
        // Some damage (a flipped byte in lossy data) still decodes; truncations do not.
        #expect(result.decoded > 0 && result.decoded < inputs.count)
    }
}
