import Foundation
import Testing
@testable import Kingfisher

/// Animated AVIF (`avis`): four 48×32 frames of 100, 250, 40 and 500 ms written by avifenc, each
/// compared with avifdec's `--index` output (tolerance 0, as for stills).
@Suite struct AVIFSequenceTests {
    private let durations: [TimeInterval] = [0.1, 0.25, 0.04, 0.5]

    @Test func everyFrameWithItsDuration() throws {
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("anim"))
        #expect(image.frames.count == 4 && image.loopCount == 0 && image.isOpaque)
        for (index, frame) in image.frames.enumerated() {
            #expect(abs(frame.duration - durations[index]) < 1e-9)
            #expect(AVIFFixtures.maxDifference(frame, try AVIFFixtures.reference("anim-\(index)")) == 0)
        }
        #expect(abs(image.duration - 0.89) < 1e-9)
        let header = try ImageHeader(data: AVIFFixtures.avif("anim"))
        #expect(header.frameCount == 4)
    }

    @Test func onlyTheFirstFrameWhenAsked() throws {
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("anim"), options: ImageCreatingOptions(onlyFirstFrame: true))
        #expect(image.frames.count == 1 && image.frameSource == nil && image.firstFrame.duration == 0)
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference("anim-0")) == 0)
    }

    @Test func lazilyFrameByFrameForwardAndBack() throws {
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("anim"), options: ImageCreatingOptions(preloadAllFrames: false))
        #expect(image.frames.count == 1 && image.frameCount == 4 && image.loopCount == 0)
        let source = try #require(image.frameSource)
        #expect(source.frameCount == 4 && abs(source.totalDuration - 0.89) < 1e-9)
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference("anim-0")) == 0)
        for index in [1, 2, 3, 0, 2, 1] {
            let frame = try source.frame(at: index, maxSize: nil)
            #expect(AVIFFixtures.maxDifference(frame, try AVIFFixtures.reference("anim-\(index)")) == 0)
            #expect(abs(frame.duration - durations[index]) < 1e-9)
        }
        let small = try source.frame(at: 3, maxSize: CGSize(width: 24, height: 24))
        #expect(small.width == 24 && small.height == 16)
        #expect(throws: KingfisherError.self) { try source.frame(at: 4, maxSize: nil) }
    }

    @Test func animationLimitsApplyBeforeAnyFrame() throws {
        let tight = ImageCreatingOptions(limits: ImageDecodingLimits(maxFrameCount: 3))
        for preload in [true, false] {
            var options = tight
            options.preloadAllFrames = preload
            do {
                _ = try KFCrossPlatformImage(data: AVIFFixtures.avif("anim"), options: options)
                Issue.record("four frames passed a three-frame limit")
            } catch let error as KingfisherError {
                #expect(error.errorCode == 4104)
            }
        }
        let pixels = ImageCreatingOptions(limits: ImageDecodingLimits(maxTotalAnimationPixels: 48 * 32 * 4 - 1))
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: AVIFFixtures.avif("anim"), options: pixels) }
        // One frame is all that is decoded with onlyFirstFrame, so only the frame limit applies.
        var first = tight
        first.onlyFirstFrame = true
        #expect(try KFCrossPlatformImage(data: AVIFFixtures.avif("anim"), options: first).frames.count == 1)
    }
}
