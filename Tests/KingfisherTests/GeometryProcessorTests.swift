import Foundation
import Testing
@testable import Kingfisher

@Suite struct GeometryProcessorTests {
    let options = KingfisherParsedOptionsInfo(nil)

    static func animation(width: Int, height: Int, durations: [TimeInterval] = [0.1, 0.2, 0.3]) throws -> KFCrossPlatformImage {
        let frames = durations.enumerated().map { index, duration in
            TestImages.gradientFrame(width: width, height: height, seed: index).withDuration(duration)
        }
        return try #require(KFCrossPlatformImage(frames: frames, loopCount: 3))
    }

    // MARK: Resize

    @Test func contentModesGiveKingfishersSizes() {
        let tall = TestImages.gradient(width: 100, height: 200)
        let square = CGSize(width: 100, height: 100)
        #expect(tall.kf.resize(to: square, for: .none).size == CGSize(width: 100, height: 100))
        #expect(tall.kf.resize(to: square, for: .aspectFit).size == CGSize(width: 50, height: 100))
        #expect(tall.kf.resize(to: square, for: .aspectFill).size == CGSize(width: 100, height: 200))

        let wide = TestImages.gradient(width: 300, height: 100)
        let box = CGSize(width: 60, height: 60)
        #expect(wide.kf.resize(to: box, for: .none).size == box)
        #expect(wide.kf.resize(to: box, for: .aspectFit).size == CGSize(width: 60, height: 20))
        #expect(wide.kf.resize(to: box, for: .aspectFill).size == CGSize(width: 180, height: 60))
        #expect(wide.kf.resize(to: CGSize(width: 900, height: 900), for: .aspectFit).pixelWidth == 900)

        // Sizes are points: a 2x image gets twice the pixels and keeps its scale.
        let retina = TestImages.gradient(width: 200, height: 400).kf.scaled(to: 2)
        let fitted = retina.kf.resize(to: CGSize(width: 50, height: 50), for: .aspectFit)
        #expect(fitted.scale == 2 && fitted.size == CGSize(width: 25, height: 50))
        #expect(fitted.pixelWidth == 50 && fitted.pixelHeight == 100)
    }

    @Test func resizeReturnsTheImageForSameOrInvalidSizes() {
        let image = TestImages.gradient(width: 30, height: 20)
        for size in [CGSize(width: 30, height: 20), .zero, CGSize(width: -5, height: 10),
                     CGSize(width: CGFloat.nan, height: 10), CGSize(width: CGFloat.infinity, height: 10),
                     CGSize(width: 0.4, height: 10)] {
            #expect(image.kf.resize(to: size) == image)
        }
        #expect(image.kf.resize(to: CGSize(width: 0.6, height: 10)).pixelWidth == 1)
    }

    @Test func scaledKeepsThePixels() {
        let image = TestImages.gradient(width: 30, height: 20)
        let scaled = image.kf.scaled(to: 3)
        #expect(scaled.scale == 3 && scaled.frames == image.frames)
        #expect(scaled.size == CGSize(width: 10, height: 20.0 / 3))
        #expect(image.kf.scaled(to: 0) == image && image.kf.scaled(to: .nan) == image && image.kf.scaled(to: 1) == image)
    }

    @Test func animationsResizeFrameByFrame() throws {
        let animation = try Self.animation(width: 40, height: 30)
        let resized = animation.kf.resize(to: CGSize(width: 20, height: 15))
        #expect(resized.frames.count == 3 && resized.loopCount == 3)
        #expect(resized.frames.map(\.duration) == [0.1, 0.2, 0.3])
        for (index, frame) in resized.frames.enumerated() {
            let expected = Resampler.resample(animation.frames[index], width: 20, height: 15)
            #expect(frame.pixels == expected.pixels)
        }
    }

    // MARK: Crop

    static let anchors: [(CGPoint, Int, Int)] = [
        (CGPoint(x: 0, y: 0), 0, 0), (CGPoint(x: 0.5, y: 0), 40, 0), (CGPoint(x: 1, y: 0), 80, 0),
        (CGPoint(x: 0, y: 0.5), 0, 35), (CGPoint(x: 0.5, y: 0.5), 40, 35), (CGPoint(x: 1, y: 0.5), 80, 35),
        (CGPoint(x: 0, y: 1), 0, 70), (CGPoint(x: 0.5, y: 1), 40, 70), (CGPoint(x: 1, y: 1), 80, 70),
        (CGPoint(x: -3, y: 7), 0, 70), (CGPoint(x: 0.25, y: 0.1), 20, 7),
    ]

    @Test(arguments: anchors)
    func cropTakesThePixelsAtTheAnchor(anchor: CGPoint, x: Int, y: Int) throws {
        let image = TestImages.gradient(width: 100, height: 80, alpha: true)
        let cropped = image.kf.crop(to: CGSize(width: 20, height: 10), anchorOn: anchor)
        #expect(cropped.pixelWidth == 20 && cropped.pixelHeight == 10)
        for row in 0..<10 {
            for column in 0..<20 {
                #expect(cropped.firstFrame.pixel(x: column, y: row) == image.firstFrame.pixel(x: x + column, y: y + row))
            }
        }
        let rect = image.size.kf.constrainedRect(for: CGSize(width: 20, height: 10), anchor: anchor)
        #expect(rect == CGRect(x: x, y: y, width: 20, height: 10))
    }

    @Test func cropLargerThanTheImageKeepsThatDirectionWhole() {
        let image = TestImages.gradient(width: 100, height: 80)
        let wide = image.kf.crop(to: CGSize(width: 300, height: 10), anchorOn: CGPoint(x: 0.5, y: 1))
        #expect(wide.pixelWidth == 100 && wide.pixelHeight == 10)
        #expect(wide.firstFrame.pixel(x: 0, y: 0) == image.firstFrame.pixel(x: 0, y: 70))
        #expect(image.kf.crop(to: CGSize(width: 500, height: 500), anchorOn: .zero) == image)
        #expect(image.kf.crop(to: .zero, anchorOn: .zero) == image)
        // Kingfisher's documented examples, in points.
        let size = CGSize(width: 100, height: 100), crop = CGSize(width: 20, height: 20)
        #expect(size.kf.constrainedRect(for: crop, anchor: .zero) == CGRect(x: 0, y: 0, width: 20, height: 20))
        #expect(size.kf.constrainedRect(for: crop, anchor: CGPoint(x: 0.5, y: 0.5)) == CGRect(x: 40, y: 40, width: 20, height: 20))
        #expect(size.kf.constrainedRect(for: crop, anchor: CGPoint(x: 1, y: 1)) == CGRect(x: 80, y: 80, width: 20, height: 20))
    }

    @Test func cropWorksInPointsAndOnAnimations() throws {
        let retina = TestImages.gradient(width: 100, height: 80).kf.scaled(to: 2)
        let cropped = retina.kf.crop(to: CGSize(width: 10, height: 10), anchorOn: CGPoint(x: 1, y: 1))
        #expect(cropped.scale == 2 && cropped.pixelWidth == 20 && cropped.firstFrame.pixel(x: 0, y: 0) == retina.firstFrame.pixel(x: 80, y: 60))
        let animation = try Self.animation(width: 40, height: 30)
        let croppedAnimation = animation.kf.crop(to: CGSize(width: 10, height: 10), anchorOn: .zero)
        #expect(croppedAnimation.frames.count == 3 && croppedAnimation.loopCount == 3)
        #expect(croppedAnimation.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(croppedAnimation.frames[2].pixel(x: 9, y: 9) == animation.frames[2].pixel(x: 9, y: 9))
    }

    // MARK: Identifiers

    @Test func identifiersMatchKingfisherAndEncodeEveryParameter() {
        #expect(DownsamplingImageProcessor(size: CGSize(width: 200, height: 200)).identifier
                == "com.onevcat.Kingfisher.DownsamplingImageProcessor((200.0, 200.0))")
        #expect(ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 50)).identifier
                == "com.onevcat.Kingfisher.ResizingImageProcessor((100.0, 50.0))")
        #expect(ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 50), mode: .aspectFill).identifier
                == "com.onevcat.Kingfisher.ResizingImageProcessor((100.0, 50.0), aspectFill)")
        #expect(CroppingImageProcessor(size: CGSize(width: 20, height: 10)).identifier
                == "com.onevcat.Kingfisher.CroppingImageProcessor((20.0, 10.0)_(0.5, 0.5))")

        let processors: [any ImageProcessor] = [
            DownsamplingImageProcessor(size: CGSize(width: 200, height: 200)),
            DownsamplingImageProcessor(size: CGSize(width: 200, height: 100)),
            DownsamplingImageProcessor(size: CGSize(width: 200.5, height: 200)),
            ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 50)),
            ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 51)),
            ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 50), mode: .aspectFit),
            ResizingImageProcessor(referenceSize: CGSize(width: 100, height: 50), mode: .aspectFill),
            CroppingImageProcessor(size: CGSize(width: 20, height: 10)),
            CroppingImageProcessor(size: CGSize(width: 10, height: 20)),
            CroppingImageProcessor(size: CGSize(width: 20, height: 10), anchor: .zero),
            CroppingImageProcessor(size: CGSize(width: 20, height: 10), anchor: CGPoint(x: 0.5, y: 0)),
        ]
        #expect(Set(processors.map(\.identifier)).count == processors.count)
        let chain = processors[0] |> processors[3] |> processors[7]
        #expect(chain.identifier == "\(processors[0].identifier)|>\(processors[3].identifier)|>\(processors[7].identifier)")
    }

    @Test func processorsWorkInPointsOfTheScaleFactor() throws {
        let retina = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let image = TestImages.gradient(width: 300, height: 200)
        let resized = try #require(ResizingImageProcessor(referenceSize: CGSize(width: 60, height: 60), mode: .aspectFit)
            .process(item: .image(image), options: retina))
        #expect(resized.scale == 2 && resized.pixelWidth == 120 && resized.pixelHeight == 80)
        let cropped = try #require(CroppingImageProcessor(size: CGSize(width: 20, height: 20), anchor: .zero)
            .process(item: .image(image), options: retina))
        #expect(cropped.scale == 2 && cropped.pixelWidth == 40)
        let data = try image.encoded(as: .PNG)
        let chain = ResizingImageProcessor(referenceSize: CGSize(width: 60, height: 60), mode: .aspectFill)
            |> CroppingImageProcessor(size: CGSize(width: 60, height: 60))
        let square = try #require(chain.process(item: .data(data), options: options))
        #expect(square.pixelWidth == 60 && square.pixelHeight == 60)
        #expect(ResizingImageProcessor(referenceSize: CGSize(width: 5, height: 5)).process(item: .data(Data("junk".utf8)), options: options) == nil)
    }
}
