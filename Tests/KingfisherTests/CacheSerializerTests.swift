import Foundation
import Testing
@testable import Kingfisher

@Suite struct CacheSerializerTests {
    let options = KingfisherParsedOptionsInfo(nil)

    @Test(arguments: [ImageFormat.PNG, .JPEG, .GIF, .WebP])
    func defaultSerializerKeepsTheOriginalFormat(format: ImageFormat) throws {
        let image = TestImages.gradient(width: 24, height: 16)
        let original = try image.encoded(as: format)
        let data = try #require(DefaultCacheSerializer.default.data(with: image, original: original))
        #expect(data.kf.imageFormat == format)
        let back = try #require(DefaultCacheSerializer.default.image(with: data, options: options))
        #expect(back.pixelWidth == 24 && back.pixelHeight == 16)
    }

    @Test func withoutAnOriginalTheDefaultWritesPNG() throws {
        let image = TestImages.gradient(width: 8, height: 8, alpha: true)
        let data = try #require(DefaultCacheSerializer.default.data(with: image, original: nil))
        #expect(data.kf.imageFormat == .PNG)
        #expect(DefaultCacheSerializer.default.image(with: data, options: options) == image)
    }

    @Test func preferringOriginalDataStoresItUntouched() throws {
        var serializer = DefaultCacheSerializer()
        serializer.preferCacheOriginalData = true
        #expect(serializer.originalDataUsed && !DefaultCacheSerializer.default.originalDataUsed)
        let original = try TestImages.gradient(width: 8, height: 8).encoded(as: .JPEG)
        let processed = TestImages.solid(width: 4, height: 4, RGBA8(r: 1, g: 2, b: 3, a: 255))
        #expect(serializer.data(with: processed, original: original) == original)
        #expect(serializer.data(with: processed, original: nil)?.kf.imageFormat == .PNG)
    }

    @Test func compressionQualityReachesTheJPEGEncoder() throws {
        let image = TestImages.gradient(width: 64, height: 64)
        let original = try image.encoded(as: .JPEG)
        var low = DefaultCacheSerializer()
        low.compressionQuality = 0.1
        let small = try #require(low.data(with: image, original: original))
        let large = try #require(DefaultCacheSerializer.default.data(with: image, original: original))
        #expect(small.count < large.count)
    }

    @Test func formatIndicatedSerializerKeepsTransparencyOfAJPEGSource() throws {
        // A JPEG made partly transparent by processing (as round corners do) must not lose its alpha.
        let original = try TestImages.gradient(width: 16, height: 16).encoded(as: .JPEG)
        let transparent = TestImages.gradient(width: 16, height: 16, alpha: true)
        let viaDefault = try #require(DefaultCacheSerializer.default.data(with: transparent, original: original))
        #expect(viaDefault.kf.imageFormat == .JPEG)
        #expect(DefaultCacheSerializer.default.image(with: viaDefault, options: options)?.isOpaque == true)
        let viaPNG = try #require(FormatIndicatedCacheSerializer.png.data(with: transparent, original: original))
        #expect(viaPNG.kf.imageFormat == .PNG)
        #expect(FormatIndicatedCacheSerializer.png.image(with: viaPNG, options: options) == transparent)
    }

    @Test func formatIndicatedSerializersWriteTheirFormat() throws {
        let image = TestImages.gradient(width: 8, height: 8)
        #expect(FormatIndicatedCacheSerializer.jpeg.data(with: image, original: nil)?.kf.imageFormat == .JPEG)
        #expect(FormatIndicatedCacheSerializer.gif.data(with: image, original: nil)?.kf.imageFormat == .GIF)
        let webp = try #require(FormatIndicatedCacheSerializer.webp.data(with: image, original: nil))
        #expect(webp.kf.imageFormat == .WebP)
        #expect(FormatIndicatedCacheSerializer.webp.image(with: webp, options: options) == image)
        let low = try #require(FormatIndicatedCacheSerializer.jpeg(compressionQuality: 0.1).data(with: image, original: nil))
        let high = try #require(FormatIndicatedCacheSerializer.jpeg.data(with: image, original: nil))
        #expect(low.count < high.count)
    }

    @Test func animationsSurviveGIFAndWebPSerializers() throws {
        let frames = (0..<3).map { TestImages.gradientFrame(width: 8, height: 8, seed: $0).withDuration(0.2) }
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 0))
        for serializer in [FormatIndicatedCacheSerializer.gif, .webp] {
            let data = try #require(serializer.data(with: animation, original: nil))
            let back = try #require(serializer.image(with: data, options: options))
            #expect(back.frames.count == 3 && abs(back.duration - 0.6) < 0.01)
        }
    }

    @Test func serializerReadsWithTheRequestOptions() throws {
        let data = try TestImages.gradient(width: 8, height: 8).encoded(as: .PNG)
        let image = try #require(DefaultCacheSerializer.default.image(with: data, options: KingfisherParsedOptionsInfo([.scaleFactor(2)])))
        #expect(image.scale == 2)
        #expect(DefaultCacheSerializer.default.image(with: Data("nope".utf8), options: options) == nil)
    }

    @Test func modifiersApplyAndFallBackOnFailure() {
        struct Failure: Error {}
        let image = TestImages.gradient(width: 4, height: 4)
        #expect(AnyImageModifier { $0.withScale(3) }.modify(image).scale == 3)
        #expect(AnyImageModifier { _ in throw Failure() }.modify(image) == image)
    }
}
