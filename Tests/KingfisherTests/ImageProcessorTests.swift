import Foundation
import Testing
@testable import Kingfisher

@Suite struct ImageProcessorTests {
    struct Named: ImageProcessor {
        let identifier: String
        let transform: @Sendable (KFCrossPlatformImage) -> KFCrossPlatformImage?
        func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
            item.decodedImage(options: options).flatMap(transform)
        }
    }

    @Test func chainingJoinsIdentifiersAndRunsInOrder() throws {
        let double = Named(identifier: "double") { $0.withScale($0.scale * 2) }
        let firstOnly = Named(identifier: "first") { $0.firstFrameOnly() }
        let chain = double |> firstOnly |> double
        #expect(chain.identifier == "double|>first|>double")
        #expect(double.append(another: firstOnly).identifier == "double|>first")
        #expect((DefaultImageProcessor.default |> double).identifier == "|>double")
        let image = try #require(chain.process(item: .image(TestImages.gradient(width: 4, height: 4)),
                                               options: KingfisherParsedOptionsInfo(nil)))
        #expect(image.scale == 4)
    }

    @Test func chainStopsAtTheFirstFailure() {
        let fail = Named(identifier: "fail") { _ in nil }
        let never = Named(identifier: "never") { _ in
            Issue.record("ran after a failure")
            return nil
        }
        #expect((fail |> never).process(item: .image(TestImages.gradient(width: 2, height: 2)),
                                        options: KingfisherParsedOptionsInfo(nil)) == nil)
    }

    @Test func defaultProcessorDecodesDataWithTheOptions() throws {
        let data = try TestImages.gradient(width: 8, height: 6).encoded(as: .PNG)
        let options = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let image = try #require(DefaultImageProcessor.default.process(item: .data(data), options: options))
        #expect(image.pixelWidth == 8 && image.scale == 2 && image.size == CGSize(width: 4, height: 3))
        #expect(DefaultImageProcessor.default.identifier == "")
        #expect(DefaultImageProcessor.default.process(item: .data(Data("junk".utf8)), options: options) == nil)
        let limited = KingfisherParsedOptionsInfo([.decodingLimits(ImageDecodingLimits(maxPixelsPerFrame: 10))])
        #expect(DefaultImageProcessor.default.process(item: .data(data), options: limited) == nil)
    }

    @Test func lastOptionWins() {
        let options = KingfisherParsedOptionsInfo([.scaleFactor(2), .scaleFactor(3), .onlyLoadFirstFrame])
        #expect(options.scaleFactor == 3 && options.onlyLoadFirstFrame)
        #expect(options.imageCreatingOptions.onlyFirstFrame && options.imageCreatingOptions.scale == 3)
    }

    @Test func colorsParseHexAndDescribeThemselves() throws {
        let color = try #require(KFCrossPlatformColor(hex: "#FF800040"))
        #expect(color.rgba8 == (255, 128, 0, 64))
        #expect(color.rgbaDescription == "(255,128,0,64)" && color.hex == "#FF800040")
        #expect(try #require(KFCrossPlatformColor(hex: "0f0")).rgba8 == (0, 255, 0, 255))
        #expect(KFCrossPlatformColor(hex: "#12345") == nil && KFCrossPlatformColor(hex: "zzzzzz") == nil)
        #expect(color.premultiplied == RGBA8(r: 64, g: 32, b: 0, a: 64))
    }

    @Test func mapFramesKeepsTimingAndRejectsMixedSizes() throws {
        let frames = [TestImages.gradientFrame(width: 4, height: 4).withDuration(0.2),
                      TestImages.gradientFrame(width: 4, height: 4, seed: 1).withDuration(0.3)]
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 2, scale: 2))
        let same = try #require(animation.mapFrames { $0 })
        #expect(same.frames.map(\.duration) == [0.2, 0.3] && same.loopCount == 2 && same.scale == 2)
        var index = 0
        let mixed = animation.mapFrames { frame in
            index += 1
            return index == 1 ? frame : TestImages.gradientFrame(width: 2, height: 2)
        }
        #expect(mixed == nil)
    }
}
