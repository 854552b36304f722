import Foundation
import Testing
@testable import Kingfisher

@Suite struct GeometryFittingTests {
    typealias Images = GeometryTestImages
    let options = KingfisherParsedOptionsInfo(nil)

    static func plan(_ width: Int, _ height: Int, box: (Int, Int), _ mode: FittingMode,
                     gravity: Gravity = .center, up: Bool = false) -> FittingPlan {
        FittingPlan(sourceWidth: width, sourceHeight: height, targetWidth: box.0, targetHeight: box.1,
                    mode: mode, gravity: gravity, allowsEnlarging: up)
    }

    static func size(_ plan: FittingPlan) -> [Int] { [plan.width, plan.height] }

    // MARK: Gravity

    @Test func compassPositionsPlaceTheRectangle() {
        let expected: [(Gravity, Int, Int)] = [
            (.center, 15, 10), (.north, 15, 0), (.south, 15, 20), (.east, 30, 10), (.west, 0, 10),
            (.northEast, 30, 0), (.northWest, 0, 0), (.southEast, 30, 20), (.southWest, 0, 20), (.smart, 15, 10),
            (.compass(.east, xOffset: 5, yOffset: 2), 25, 12), (.compass(.south, xOffset: -3, yOffset: 4), 12, 16),
            (.compass(.west, xOffset: 0.25, yOffset: -0.1), 10, 7), (.compass(.west, xOffset: 100, yOffset: 0), 30, 10),
            (.focalPoint(x: 0.5, y: 0.5), 15, 10), (.focalPoint(x: 0, y: 0), 0, 0), (.focalPoint(x: 0.9, y: 0.1), 30, 0),
            (.focalPoint(x: 0.3, y: 0.6), 7, 13), (.compass(.center, xOffset: .nan, yOffset: .infinity), 15, 10),
        ]
        for (gravity, x, y) in expected {
            let rect = gravity.rect(forCropWidth: 10, height: 10, inImageWidth: 40, height: 30)
            #expect(rect == CGRect(x: x, y: y, width: 10, height: 10), "\(gravity)")
        }
        #expect(Gravity.east.rect(forCropWidth: 100, height: 5, inImageWidth: 40, height: 30) == CGRect(x: 0, y: 13, width: 40, height: 5))
        #expect(Gravity.center.rect(forCropWidth: 0, height: -4, inImageWidth: 0, height: 3) == CGRect(x: 0, y: 1, width: 1, height: 1))
    }

    @Test func gravityParsesWhatItWrites() {
        let cases: [(String, Gravity?)] = [
            ("center", .center), ("NorthEast", .northEast), ("south:10:0.25", .compass(.south, xOffset: 10, yOffset: 0.25)),
            ("fp:0.3:0.7", .focalPoint(x: 0.3, y: 0.7)), ("smart", .smart), (" west : -5 : 2 ", .compass(.west, xOffset: -5, yOffset: 2)),
            ("up", nil), ("fp:2:0", nil), ("fp:0.5", nil), ("north:1", nil), ("smart:1", nil), ("north:x:1", nil),
            ("", nil), ("east:inf:0", nil),
        ]
        for (text, gravity) in cases {
            #expect(Gravity(parsing: text) == gravity, "\(text)")
            if let gravity { #expect(Gravity(parsing: gravity.description) == gravity) }
        }
        #expect(Gravity.compass(.south, xOffset: 10, yOffset: 0.25).description == "south:10.0:0.25")
        #expect(Gravity.compass(.east, xOffset: 5, yOffset: 0.25).scaled(by: 2) == .compass(.east, xOffset: 10, yOffset: 0.25))
        #expect(Gravity.focalPoint(x: 0.2, y: 0.3).scaled(by: 2) == .focalPoint(x: 0.2, y: 0.3))
    }

    // MARK: Plans

    @Test func fitKeepsTheAspectInsideTheBox() {
        #expect(Self.size(Self.plan(1000, 1500, box: (300, 200), .fit)) == [133, 200])
        #expect(Self.size(Self.plan(1500, 1000, box: (300, 200), .fit)) == [300, 200])
        #expect(Self.size(Self.plan(1000, 1500, box: (300, 0), .fit)) == [300, 450])
        #expect(Self.size(Self.plan(1000, 1500, box: (0, 200), .fit)) == [133, 200])
        #expect(Self.size(Self.plan(1000, 1500, box: (0, 0), .fit)) == [1000, 1500])
        #expect(Self.size(Self.plan(5000, 10, box: (300, 200), .fit)) == [300, 1])
        #expect(Self.size(Self.plan(100, 50, box: (300, 200), .fit)) == [100, 50])
        #expect(Self.size(Self.plan(100, 50, box: (300, 200), .fit, up: true)) == [300, 150])
        #expect(Self.plan(1000, 1500, box: (300, 200), .fit).minimumSourceSize == CGSize(width: 133, height: 200))
        #expect(Self.plan(100, 50, box: (300, 200), .fit).minimumSourceSize == nil)
    }

    @Test func fillCoversTheBoxAndCropsTheSource() {
        let plan = Self.plan(1000, 1500, box: (300, 200), .fill)
        #expect(Self.size(plan) == [300, 200])
        #expect(plan.crop == (0, 417, 1000, 667))
        #expect(plan.minimumSourceSize == CGSize(width: 300, height: 450))
        #expect(Self.plan(1000, 1500, box: (300, 200), .fill, gravity: .south).crop == (0, 833, 1000, 667))
        // Pixel offsets count in result pixels: 20 of them are 20 × 1000/300 = 67 source pixels.
        #expect(Self.plan(1000, 1500, box: (300, 200), .fill, gravity: .compass(.north, xOffset: 0, yOffset: 20)).crop == (0, 67, 1000, 667))
        // A free side makes fill a fit.
        #expect(Self.size(Self.plan(1000, 1500, box: (300, 0), .fill)) == [300, 450])
        // Too small to fill: the largest part with the box's aspect, not enlarged, unless asked.
        let small = Self.plan(400, 100, box: (300, 200), .fill)
        #expect(Self.size(small) == [150, 100] && small.crop == (125, 0, 150, 100))
        #expect(Self.size(Self.plan(400, 100, box: (300, 200), .fill, up: true)) == [300, 200])
    }

    @Test func forceStretchesButNeverEnlargesUnlessAsked() {
        #expect(Self.size(Self.plan(1000, 1500, box: (300, 200), .force)) == [300, 200])
        #expect(Self.size(Self.plan(100, 50, box: (300, 20), .force)) == [100, 20])
        #expect(Self.size(Self.plan(100, 50, box: (300, 20), .force, up: true)) == [300, 20])
        #expect(Self.size(Self.plan(100, 50, box: (0, 20), .force)) == [40, 20])
    }

    // MARK: Processors on pixels

    @Test func fillWithGravityKeepsTheRightQuadrants() throws {
        let wide = Images.quadrants(width: 80, height: 40)
        let tall = Images.quadrants(width: 40, height: 80)
        let cases: [(KFCrossPlatformImage, Gravity, RGBA8, RGBA8)] = [
            (wide, .west, Images.red, Images.blue), (wide, .east, Images.green, Images.white),
            (wide, .focalPoint(x: 1, y: 0.5), Images.green, Images.white),
            (tall, .north, Images.red, Images.green), (tall, .south, Images.blue, Images.white),
        ]
        for (image, gravity, first, second) in cases {
            let result = try #require(FittingImageProcessor(size: CGSize(width: 10, height: 10), mode: .fill, gravity: gravity)
                .process(item: .image(image), options: options))
            #expect(result.pixelWidth == 10 && result.pixelHeight == 10)
            let corner = try #require(result.firstFrame.pixel(x: 1, y: 1))
            let opposite = try #require(result.firstFrame.pixel(x: 8, y: 8))
            #expect(Self.near(corner, first), "\(gravity) \(corner)")
            #expect(Self.near(opposite, second), "\(gravity) \(opposite)")
        }
    }

    static func near(_ a: RGBA8, _ b: RGBA8) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= 2 && abs(Int(a.g) - Int(b.g)) <= 2 && abs(Int(a.b) - Int(b.b)) <= 2 && a.a == b.a
    }

    @Test func fillOfASmallImageCropsInsteadOfEnlarging() throws {
        let image = Images.quadrants(width: 40, height: 20)
        let result = try #require(FittingImageProcessor(size: CGSize(width: 100, height: 100), mode: .fill)
            .process(item: .image(image), options: options))
        #expect(result.pixelWidth == 20 && result.pixelHeight == 20)
        #expect(result == image.cropped(toPixelRect: CGRect(x: 10, y: 0, width: 20, height: 20)))
        #expect(result.firstFrame.pixel(x: 0, y: 0) == Images.red && result.firstFrame.pixel(x: 19, y: 19) == Images.white)
    }

    @Test func fittingCountsPointsAtTheScaleFactor() throws {
        let image = TestImages.gradient(width: 100, height: 150)
        let options = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let result = try #require(FittingImageProcessor(size: CGSize(width: 15, height: 10)).process(item: .image(image), options: options))
        #expect(result.pixelWidth == 13 && result.pixelHeight == 20 && result.scale == 2)
        for size in [CGSize(width: -1, height: 10), CGSize(width: CGFloat.nan, height: 1), CGSize(width: 1e12, height: 1)] {
            #expect(FittingImageProcessor(size: size).process(item: .image(image), options: options) == nil)
        }
        let huge = FittingImageProcessor(size: CGSize(width: 100_000, height: 100_000), mode: .force, allowsEnlarging: true)
        #expect(huge.process(item: .image(image), options: options) == nil)
    }

    @Test func fittingKeepsAnimations() throws {
        let animation = try Images.animation(width: 30, height: 20)
        for mode in FittingMode.allCases {
            let result = try #require(FittingImageProcessor(size: CGSize(width: 10, height: 10), mode: mode)
                .process(item: .image(animation), options: options))
            #expect(result.frames.map(\.duration) == [0.1, 0.2, 0.3] && result.loopCount == 2, "\(mode)")
            #expect(result.frames[0] != result.frames[1])
        }
    }

    /// A JPEG decodes at a reduced DCT scale, and the result matches the full-size route.
    @Test func jpegDataDecodesReduced() throws {
        let source = TestImages.gradient(width: 800, height: 600)
        let jpeg = try #require(source.kf.jpegRepresentation(compressionQuality: 0.9))
        let processor = FittingImageProcessor(size: CGSize(width: 100, height: 100))
        let result = try #require(processor.process(item: .data(jpeg), options: options))
        #expect(result.pixelWidth == 100 && result.pixelHeight == 75)

        let plan = Self.plan(800, 600, box: (100, 100), .fit)
        let minimum = try #require(plan.minimumSourceSize)
        let reduced = try KFCrossPlatformImage(data: jpeg, options: ImageCreatingOptions(minimumPixelSize: minimum))
        #expect(reduced.pixelWidth == 100 && reduced.pixelHeight == 75)

        let full = try KFCrossPlatformImage(data: jpeg)
        let viaFull = try #require(processor.process(item: .image(full), options: options))
        #expect(TestImages.meanDifference(result.firstFrame, viaFull.firstFrame) < 2)

        let filled = try #require(FittingImageProcessor(size: CGSize(width: 60, height: 60), mode: .fill, gravity: .east)
            .process(item: .data(jpeg), options: options))
        let filledFull = try #require(FittingImageProcessor(size: CGSize(width: 60, height: 60), mode: .fill, gravity: .east)
            .process(item: .image(full), options: options))
        #expect(filled.pixelWidth == 60 && filled.pixelHeight == 60)
        #expect(TestImages.meanDifference(filled.firstFrame, filledFull.firstFrame) < 2)
        #expect(processor.process(item: .data(Data([1, 2, 3])), options: options) == nil)
    }
}
