import Foundation
import Testing
@testable import Kingfisher

@Suite struct DownsamplingProcessorTests {
    let options = KingfisherParsedOptionsInfo(nil)

    func downsample(_ data: Data, _ size: CGSize, options: KingfisherParsedOptionsInfo? = nil) throws -> KFCrossPlatformImage {
        try #require(DownsamplingImageProcessor(size: size).process(item: .data(data), options: options ?? self.options))
    }

    @Test func targetSizeFollowsTheThumbnailRule() {
        typealias K = KingfisherWrapper<KFCrossPlatformImage>
        #expect(K.thumbnailSize(width: 400, height: 300, maxPixels: 100)! == (100, 75))
        #expect(K.thumbnailSize(width: 300, height: 400, maxPixels: 100)! == (75, 100))
        #expect(K.thumbnailSize(width: 400, height: 300, maxPixels: 400)! == (400, 300))
        #expect(K.thumbnailSize(width: 400, height: 300, maxPixels: 5000)! == (400, 300))
        #expect(K.thumbnailSize(width: 1000, height: 1, maxPixels: 10)! == (10, 1))
        #expect(K.maxPixelDimension(CGSize(width: 200, height: 50), scale: 2) == 400)
        #expect(K.maxPixelDimension(CGSize(width: 200, height: 0), scale: 1) == 200)
        for bad in [CGSize.zero, CGSize(width: -1, height: 100), CGSize(width: CGFloat.nan, height: 100),
                    CGSize(width: CGFloat.infinity, height: 1), CGSize(width: 0.2, height: 0.3)] {
            #expect(K.maxPixelDimension(bad, scale: 1) == nil)
        }
    }

    @Test func jpegShrinksToTheExactSizeAndMatchesAFullDecode() throws {
        let source = TestImages.gradient(width: 400, height: 300)
        let data = try source.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 0.95))
        let small = try downsample(data, CGSize(width: 100, height: 100))
        #expect(small.pixelWidth == 100 && small.pixelHeight == 75 && small.scale == 1)
        // Decode-time DCT scaling plus our resample stays close to a full decode plus the same resample.
        let reference = Resampler.resample(try KFCrossPlatformImage(data: data).firstFrame, width: 100, height: 75)
        #expect(TestImages.meanDifference(small.firstFrame, reference) < 2)
        // Odd sizes, and the longest side wins even if the box is not square.
        #expect(try downsample(data, CGSize(width: 37, height: 5)).pixelWidth == 37)
        #expect(try downsample(data, CGSize(width: 37, height: 5)).pixelHeight == 28)
        #expect(try downsample(data, CGSize(width: 10, height: 150)).pixelWidth == 150)
    }

    @Test func neverUpscales() throws {
        let data = try TestImages.gradient(width: 40, height: 30).encoded(as: .JPEG)
        let same = try downsample(data, CGSize(width: 1000, height: 1000))
        #expect(same.pixelWidth == 40 && same.pixelHeight == 30)
        let image = TestImages.gradient(width: 40, height: 30)
        let fromImage = try #require(DownsamplingImageProcessor(size: CGSize(width: 500, height: 10))
            .process(item: .image(image), options: options))
        #expect(fromImage.pixelWidth == 40 && fromImage.frames == image.frames)
    }

    @Test(arguments: [ImageOrientation.right, .left, .down, .rightMirrored])
    func exifRotatedJPEGComesOutUpright(orientation: ImageOrientation) throws {
        let stored = TestImages.gradient(width: 400, height: 300)
        let jpeg = try stored.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 0.95))
        let data = JPEGCodecTests.insertingExif(orientation: orientation, into: jpeg)
        let small = try downsample(data, CGSize(width: 80, height: 80))
        let (width, height) = orientation.swapsDimensions ? (60, 80) : (80, 60)
        #expect(small.pixelWidth == width && small.pixelHeight == height)
        let upright = try KFCrossPlatformImage(data: data)
        let reference = Resampler.resample(upright.firstFrame, width: width, height: height)
        #expect(TestImages.meanDifference(small.firstFrame, reference) < 2)
    }

    @Test func pngKeepsAlphaAndScaleFactor() throws {
        let data = try TestImages.gradient(width: 300, height: 200, alpha: true).encoded(as: .PNG)
        let retina = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let small = try downsample(data, CGSize(width: 50, height: 50), options: retina)
        #expect(small.pixelWidth == 100 && small.pixelHeight == 67 && small.scale == 2)
        #expect(small.size == CGSize(width: 50, height: 33.5))
        for y in 0..<small.pixelHeight {
            for x in 0..<small.pixelWidth {
                let pixel = try #require(small.firstFrame.pixel(x: x, y: y))
                #expect(pixel.r <= pixel.a && pixel.g <= pixel.a && pixel.b <= pixel.a)
            }
        }
        #expect(!small.isOpaque)
    }

    @Test func gifIsDownsampledFrameByFrame() throws {
        let frames = (0..<3).map { TestImages.gradientFrame(width: 60, height: 40, seed: $0).withDuration([0.1, 0.2, 0.5][$0]) }
        let data = try #require(KFCrossPlatformImage(frames: frames, loopCount: 2)).encoded(as: .GIF)
        let small = try downsample(data, CGSize(width: 30, height: 30))
        #expect(small.pixelWidth == 30 && small.pixelHeight == 20)
        #expect(small.frames.count == 3 && small.loopCount == 2)
        #expect(zip(small.frames.map(\.duration), [0.1, 0.2, 0.5]).allSatisfy { abs($0 - $1) < 0.001 })
        let decoded = try KFCrossPlatformImage(data: data)
        for (frame, full) in zip(small.frames, decoded.frames) {
            #expect(frame.pixels == Resampler.resample(full, width: 30, height: 20).pixels)
        }
        let first = try downsample(data, CGSize(width: 30, height: 30), options: KingfisherParsedOptionsInfo([.onlyLoadFirstFrame]))
        #expect(first.frames.count == 1)
    }

    @Test func webpStillAndAnimated() throws {
        let still = try TestImages.gradient(width: 301, height: 100).encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        let small = try downsample(still, CGSize(width: 100, height: 100))
        #expect(small.pixelWidth == 100 && small.pixelHeight == 33)
        let animated = try WebPCodecTests.encodedAnimation()
        let smallAnimation = try downsample(animated, CGSize(width: 16, height: 16))
        #expect(smallAnimation.pixelWidth == 16 && smallAnimation.pixelHeight == 12)
        #expect(smallAnimation.frames.count == 3 && smallAnimation.loopCount == 2)
        #expect(zip(smallAnimation.frames.map(\.duration), [0.1, 0.25, 0.5]).allSatisfy { abs($0 - $1) < 0.002 })
        // Solid frames stay exactly solid.
        #expect(smallAnimation.frames[1].pixel(x: 7, y: 5) == RGBA8(r: 0, g: 200, b: 0, a: 255))
    }

    @Test func invalidSizesAndDataGiveNil() throws {
        let data = try TestImages.gradient(width: 40, height: 30).encoded(as: .PNG)
        let image = TestImages.gradient(width: 40, height: 30)
        for size in [CGSize.zero, CGSize(width: -10, height: 10), CGSize(width: CGFloat.nan, height: 10)] {
            #expect(DownsamplingImageProcessor(size: size).process(item: .data(data), options: options) == nil)
            #expect(DownsamplingImageProcessor(size: size).process(item: .image(image), options: options) == nil)
            #expect(KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(data: data, to: size, scale: 1) == nil)
        }
        #expect(DownsamplingImageProcessor(size: CGSize(width: 10, height: 10)).process(item: .data(Data("junk".utf8)), options: options) == nil)
        let limited = KingfisherParsedOptionsInfo([.decodingLimits(ImageDecodingLimits(maxPixelsPerFrame: 100))])
        #expect(DownsamplingImageProcessor(size: CGSize(width: 10, height: 10)).process(item: .data(data), options: limited) == nil)
        let helper = try #require(KingfisherWrapper<KFCrossPlatformImage>.downsampledImage(data: data, to: CGSize(width: 10, height: 10), scale: 2))
        #expect(helper.pixelWidth == 20 && helper.pixelHeight == 15 && helper.scale == 2)
    }

    @Test func imageItemsUseTheSameRule() throws {
        let image = TestImages.gradient(width: 300, height: 200)
        let retina = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let small = try #require(DownsamplingImageProcessor(size: CGSize(width: 30, height: 30)).process(item: .image(image), options: retina))
        #expect(small.pixelWidth == 60 && small.pixelHeight == 40 && small.scale == 2)
        #expect(small.firstFrame.pixels == Resampler.resample(image.firstFrame, width: 60, height: 40).pixels)
    }
}
