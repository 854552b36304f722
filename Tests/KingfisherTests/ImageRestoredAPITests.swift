import Foundation
import Testing
@testable import Kingfisher

/// The image members restored under Kingfisher's names, on real encoded files.
@Suite struct ImageRestoredAPITests {
    /// Three 6×4 frames of 0.2 s each, looping forever.
    static var gif: Data { KingfisherFidelityTests.animatedGIF }

    @Test func kingfishersOptionsSpreadADurationOverTheFramesOfAPreloadedAnimation() throws {
        let spread = try KFCrossPlatformImage(data: Self.gif, options: ImageCreatingOptions(duration: 1.5, preloadAll: true))
        #expect(spread.frames.count == 3)
        #expect(spread.frames.map(\.duration) == [0.5, 0.5, 0.5])
        #expect(abs(spread.duration - 1.5) < 1e-9)
        // Without a duration the file's timing stays.
        let own = try KFCrossPlatformImage(data: Self.gif, options: ImageCreatingOptions(scale: 2, preloadAll: true))
        #expect(own.frames.map(\.duration) == [0.2, 0.2, 0.2] && own.scale == 2)
    }

    @Test func kingfishersOptionsDecodeLazilyUnlessPreloadAll() throws {
        let options = ImageCreatingOptions(scale: 1, duration: 0, preloadAll: false, onlyFirstFrame: false)
        #expect(!options.preloadAll && !options.preloadAllFrames)
        let lazy = try KFCrossPlatformImage(data: Self.gif, options: options)
        #expect(lazy.frames.count == 1 && lazy.frameSource?.frameCount == 3)
        // The library's own initialiser still preloads, and wins a call both accept.
        #expect(ImageCreatingOptions().preloadAll && ImageCreatingOptions(scale: 2).preloadAllFrames)
        var changed = ImageCreatingOptions()
        changed.preloadAll = false
        #expect(!changed.preloadAllFrames)
    }

    @Test func animatedImageFromDataCarriesItsFrameSourceAndCount() throws {
        let lazy = try #require(KingfisherWrapper.animatedImage(data: Self.gif, options: ImageCreatingOptions(preloadAll: false)))
        #expect(lazy.kf.imageFrameCount == 3)
        let source = try #require(lazy.kf.frameSource)
        #expect(source.frameCount == 3 && source.duration(at: 1) == 0.2)
        let full = try KFCrossPlatformImage(data: Self.gif)
        #expect(source.frame(at: 2)?.pixels == full.frames[2].pixels)
        #expect(source.frame(at: 3) == nil)
        let still = try TestImages.gradient(width: 4, height: 4).encoded(as: .PNG)
        let decoded = try #require(KingfisherWrapper.animatedImage(data: still, options: ImageCreatingOptions()))
        #expect(decoded.kf.imageFrameCount == nil && decoded.kf.frameSource == nil)
        #expect(KingfisherWrapper.animatedImage(data: Data("no image".utf8), options: ImageCreatingOptions()) == nil)
    }

    @Test func aCopiedFrameSourceDecodesTheSameFramesOnItsOwn() throws {
        let lazy = try KFCrossPlatformImage(data: Self.gif, options: ImageCreatingOptions(preloadAll: false))
        let source = try #require(lazy.frameSource as? CodecFrameSource)
        let copy = source.copy()
        #expect(copy !== source)
        // Reading the copy backwards and the original forwards gives the same frames.
        let forwards = (0..<3).compactMap { source.frame(at: $0) }
        let backwards = (0..<3).reversed().compactMap { copy.frame(at: $0) }
        #expect(forwards.count == 3 && forwards == backwards.reversed())
    }

    @Test func animatedImageFromASourceFollowsTheOptions() throws {
        let lazy = try KFCrossPlatformImage(data: Self.gif, options: ImageCreatingOptions(preloadAll: false))
        let source = try #require(lazy.frameSource)
        let preloaded = try #require(KingfisherWrapper.animatedImage(
            source: source, options: ImageCreatingOptions(scale: 2, duration: 3, preloadAll: true)))
        #expect(preloaded.frames.count == 3 && preloaded.scale == 2)
        #expect(preloaded.frames.map(\.duration) == [1, 1, 1])
        let first = try #require(KingfisherWrapper.animatedImage(
            source: source, options: ImageCreatingOptions(onlyFirstFrame: true)))
        #expect(first.frames.count == 1 && !first.isAnimated)
        let base = TestImages.gradient(width: 6, height: 4)
        let onBase = try #require(KingfisherWrapper.animatedImage(
            source: source, options: ImageCreatingOptions(preloadAll: false), baseImage: base))
        #expect(onBase.firstFrame == base.firstFrame && onBase.kf.imageFrameCount == 3)
        #expect(onBase.kf.frameSource?.frameCount == 3)
    }

    @Test func copyKingfisherStateMovesTheAnimationOntoAnotherImage() throws {
        let lazy = try KFCrossPlatformImage(data: Self.gif, options: ImageCreatingOptions(preloadAll: false))
        var target = TestImages.gradient(width: 6, height: 4)
        #expect(target.kf.frameSource == nil)
        lazy.kf.copyKingfisherState(to: &target)
        #expect(target.kf.frameSource?.frameCount == 3 && target.kf.imageFrameCount == 3)
        #expect(target.animatedImageData == Self.gif && target.loopCount == lazy.loopCount)
    }

    @Test func normalizedIsTheUprightImageOfAnEXIFRotatedJPEG() throws {
        let stored = try TestImages.gradient(width: 8, height: 4).encoded(as: .JPEG)
        let rotated = JPEGCodecTests.insertingExif(orientation: .right, into: stored)
        let image = try KFCrossPlatformImage(data: rotated)
        let upright = image.kf.normalized
        #expect(upright.pixelWidth == 4 && upright.pixelHeight == 8)
        #expect(upright == image)
    }

    @Test func decodedKeepsThePixelsAndTakesTheScaleAsked() throws {
        let image = TestImages.gradient(width: 8, height: 4)
        #expect(image.kf.decoded == image)
        let doubled = image.kf.decoded(scale: 2)
        #expect(doubled.scale == 2 && doubled.size == CGSize(width: 4, height: 2) && doubled.frames == image.frames)
        let animation = try KFCrossPlatformImage(data: Self.gif)
        #expect(animation.kf.decoded(scale: 2) == animation)
    }

    @Test func jpegMarkersAreFoundOnlyInJPEGData() throws {
        let progressive = try Fixtures.data("jpeg/progressive.jpg")
        #expect(progressive.kf.contains(jpeg: .SOF2) && !progressive.kf.contains(jpeg: .SOF0))
        let baseline = try TestImages.gradient(width: 8, height: 8).encoded(as: .JPEG)
        #expect(baseline.kf.contains(jpeg: .SOF0) && !baseline.kf.contains(jpeg: .SOF2))
        for marker: ImageFormat.JPEGMarker in [.DHT, .DQT, .SOS, .EOI, .APPn] {
            #expect(baseline.kf.contains(jpeg: marker), "\(marker)")
        }
        #expect(!baseline.kf.contains(jpeg: .RSTn(9)))
        let withComment = Data(baseline.prefix(2)) + Data([0xFF, 0xFE, 0x00, 0x04, 0x68, 0x69]) + Data(baseline.dropFirst(2))
        #expect(withComment.kf.contains(jpeg: .COM) && !baseline.kf.contains(jpeg: .COM))
        _ = [ImageFormat.JPEGMarker.DRI, .RSTn(0)].map { baseline.kf.contains(jpeg: $0) }
        let png = try TestImages.gradient(width: 2, height: 2).encoded(as: .PNG)
        #expect(!png.kf.contains(jpeg: .EOI))
    }
}
