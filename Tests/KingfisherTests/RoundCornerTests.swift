import Foundation
import Testing
@testable import Kingfisher

/// Checks shared by the round-corner and border tests.
enum ShapeChecks {
    /// True when no colour byte exceeds its pixel's alpha in any frame.
    static func isPremultiplied(_ image: KFCrossPlatformImage) -> Bool {
        image.frames.allSatisfy { frame in
            stride(from: 0, to: frame.pixels.count, by: 4).allSatisfy { index in
                let alpha = frame.pixels[index + 3]
                return frame.pixels[index] <= alpha && frame.pixels[index + 1] <= alpha && frame.pixels[index + 2] <= alpha
            }
        }
    }

    /// The fraction of pixel (x, y) inside `shape`, by 64 × 64 point sampling: an independent estimate.
    static func sampledCoverage(_ shape: RoundedRectCoverage, x: Int, y: Int) -> Double {
        let samples = 64
        var inside = 0
        for j in 0..<samples {
            for i in 0..<samples {
                let px = Double(x) + (Double(i) + 0.5) / Double(samples)
                let py = Double(y) + (Double(j) + 0.5) / Double(samples)
                if contains(shape, px, py) { inside += 1 }
            }
        }
        return Double(inside) / Double(samples * samples)
    }

    private static func contains(_ s: RoundedRectCoverage, _ x: Double, _ y: Double) -> Bool {
        guard x >= s.left, x <= s.right, y >= s.top, y <= s.bottom else { return false }
        func outside(_ r: Double, _ cx: Double, _ cy: Double, _ inCorner: Bool) -> Bool {
            r > 0 && inCorner && (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r
        }
        let tl = s.topLeftRadius, tr = s.topRightRadius, bl = s.bottomLeftRadius, br = s.bottomRightRadius
        return !(outside(tl, s.left + tl, s.top + tl, x < s.left + tl && y < s.top + tl)
            || outside(tr, s.right - tr, s.top + tr, x > s.right - tr && y < s.top + tr)
            || outside(bl, s.left + bl, s.bottom - bl, x < s.left + bl && y > s.bottom - bl)
            || outside(br, s.right - br, s.bottom - br, x > s.right - br && y > s.bottom - br))
    }
}

@Suite struct RoundCornerTests {
    let options = KingfisherParsedOptionsInfo(nil)

    func round(_ image: KFCrossPlatformImage, _ processor: RoundCornerImageProcessor,
               options: KingfisherParsedOptionsInfo = KingfisherParsedOptionsInfo(nil)) throws -> KFCrossPlatformImage {
        let result = try #require(processor.process(item: .image(image), options: options))
        #expect(ShapeChecks.isPremultiplied(result))
        return result
    }

    // MARK: Coverage maths

    @Test(arguments: [
        (0.0, 0.0, 24.0, 18.0, 7.0, RectCorner.all),
        (1.5, 2.25, 21.75, 15.5, 5.3, RectCorner.all),
        (0.0, 0.0, 20.0, 20.0, 10.0, RectCorner.all),
        (3.0, 0.5, 19.0, 17.0, 2.6, RectCorner([.topRight, .bottomLeft])),
        (0.0, 0.0, 9.0, 30.0, 100.0, RectCorner.all),
    ] as [(Double, Double, Double, Double, Double, RectCorner)])
    func coverageIsTheExactAreaAndRowRunsAgree(left: Double, top: Double, right: Double, bottom: Double,
                                                radius: Double, corners: RectCorner) {
        let shape = RoundedRectCoverage(left: left, top: top, right: right, bottom: bottom, radius: radius, corners: corners)
        let width = 26, height = 32
        var total = 0.0
        for y in 0..<height {
            let row = shape.row(y, width: width)
            #expect(row.zeroEnd <= row.fullStart && row.fullStart <= row.fullEnd && row.fullEnd <= row.zeroStart)
            for x in 0..<width {
                let exact = shape.coverage(x: x, y: y)
                total += exact
                #expect(abs(exact - ShapeChecks.sampledCoverage(shape, x: x, y: y)) < 0.02, "pixel \(x),\(y)")
                if x < row.zeroEnd || x >= row.zeroStart {
                    #expect(exact < 1e-9, "pixel \(x),\(y) should be empty")
                } else if x >= row.fullStart && x < row.fullEnd {
                    #expect(abs(exact - row.fullValue) < 1e-9, "pixel \(x),\(y) should be full")
                }
            }
        }
        let r = min(radius, (right - left) / 2, (bottom - top) / 2)
        let cut = Double([RectCorner.topLeft, .topRight, .bottomLeft, .bottomRight].filter(corners.contains).count)
        let area = (right - left) * (bottom - top) - cut * (1 - Double.pi / 4) * r * r
        #expect(abs(total - area) < 1e-6)
    }

    @Test func partialPixelsPerRowStayNearTheArc() {
        // Linear time: on a 2000-pixel circle the exact evaluations stay proportional to the radius.
        let shape = RoundedRectCoverage(left: 0, top: 0, right: 2000, bottom: 2000, radius: 1000, corners: .all)
        var partial = 0
        for y in 0..<2000 {
            let row = shape.row(y, width: 2000)
            partial += (row.fullStart - row.zeroEnd) + (row.zeroStart - row.fullEnd)
        }
        #expect(partial < 4 * 2000 * 2)
    }

    // MARK: Pixels

    @Test func cornersAreCutWithAntialiasedArcs() throws {
        let image = TestImages.gradient(width: 40, height: 30)
        let result = try round(image, RoundCornerImageProcessor(cornerRadius: 10))
        let frame = result.firstFrame, original = image.firstFrame
        #expect(result.pixelWidth == 40 && result.pixelHeight == 30 && !result.isOpaque)
        for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29), (1, 1), (38, 28)] {
            #expect(frame.pixel(x: x, y: y) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        }
        // Everything with x in 10..<30 or y in 10..<20 is inside; so is the centre of each arc's circle.
        for y in 0..<30 {
            for x in 0..<40 where (10..<30).contains(x) || (10..<20).contains(y) {
                #expect(frame.pixel(x: x, y: y) == original.pixel(x: x, y: y))
            }
        }
        // Along the top-left diagonal alpha falls outwards, through values strictly between 0 and 255.
        let alphas = (0..<10).map { Int(frame.pixel(x: $0, y: $0)?.a ?? 0) }
        #expect(alphas.last == 255 && alphas.first == 0)
        #expect(zip(alphas, alphas.dropFirst()).allSatisfy { $0 <= $1 })
        let partial = alphas.filter { $0 > 0 && $0 < 255 }
        #expect(!partial.isEmpty)
        #expect(zip(partial, partial.dropFirst()).allSatisfy { $0 < $1 })
        // Each edge pixel is the image times its coverage.
        let shape = RoundedRectCoverage(left: 0, top: 0, right: 40, bottom: 30, radius: 10, corners: .all)
        for y in 0..<10 {
            for x in 0..<10 {
                let coverage = ShapeChecks.sampledCoverage(shape, x: x, y: y)
                let pixel = try #require(frame.pixel(x: x, y: y)), source = try #require(original.pixel(x: x, y: y))
                #expect(abs(Double(pixel.a) - coverage * 255) <= 4)
                #expect(abs(Double(pixel.r) - coverage * Double(source.r)) <= 4)
            }
        }
    }

    @Test func onlyTheSelectedCornersAreRounded() throws {
        let image = TestImages.gradient(width: 32, height: 32)
        let result = try round(image, RoundCornerImageProcessor(cornerRadius: 8, roundingCorners: [.topLeft, .bottomRight]))
        let frame = result.firstFrame, original = image.firstFrame
        #expect(frame.pixel(x: 0, y: 0)?.a == 0 && frame.pixel(x: 31, y: 31)?.a == 0)
        for y in 0..<8 {
            for x in 24..<32 {
                #expect(frame.pixel(x: x, y: y) == original.pixel(x: x, y: y))
                #expect(frame.pixel(x: y, y: x) == original.pixel(x: y, y: x))
            }
        }
    }

    @Test func backgroundFillsTheCornersAndMakesTheResultOpaque() throws {
        let image = TestImages.gradient(width: 30, height: 30)
        let result = try round(image, RoundCornerImageProcessor(cornerRadius: 10, backgroundColor: .red))
        let frame = result.firstFrame, original = image.firstFrame
        #expect(result.isOpaque)
        #expect(frame.pixel(x: 0, y: 0) == RGBA8(r: 255, g: 0, b: 0, a: 255))
        #expect(frame.pixel(x: 15, y: 15) == original.pixel(x: 15, y: 15))
        // An arc pixel mixes the image and red by its coverage.
        let shape = RoundedRectCoverage(left: 0, top: 0, right: 30, bottom: 30, radius: 10, corners: .all)
        let x = try #require((0..<10).first { shape.coverage(x: $0, y: 2) > 0.3 && shape.coverage(x: $0, y: 2) < 0.7 })
        let coverage = shape.coverage(x: x, y: 2)
        let pixel = try #require(frame.pixel(x: x, y: 2)), source = try #require(original.pixel(x: x, y: 2))
        #expect(abs(Double(pixel.r) - (Double(source.r) * coverage + 255 * (1 - coverage))) <= 2)
        #expect(abs(Double(pixel.g) - Double(source.g) * coverage) <= 2)
    }

    @Test func translucentImagesAreCompositedOverTheBackground() throws {
        let image = TestImages.gradient(width: 30, height: 20, alpha: true)
        let result = try round(image, RoundCornerImageProcessor(cornerRadius: 6, backgroundColor: KFCrossPlatformColor(white: 1, alpha: 0.5)))
        let source = try #require(image.firstFrame.pixel(x: 15, y: 10))
        let pixel = try #require(result.firstFrame.pixel(x: 15, y: 10))
        let rest = 1 - Double(source.a) / 255
        #expect(abs(Double(pixel.a) - (Double(source.a) + 128 * rest)) <= 1)
        #expect(abs(Double(pixel.g) - (Double(source.g) + 128 * rest)) <= 1)
        #expect(result.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 128, g: 128, b: 128, a: 128))
        let clear = try round(image, RoundCornerImageProcessor(cornerRadius: 6))
        #expect(ShapeChecks.isPremultiplied(clear) && clear.firstFrame.pixel(x: 15, y: 10) == source)
    }

    @Test func fractionRadiiComeFromTheWidthOrHeight() throws {
        let image = TestImages.gradient(width: 40, height: 20)
        let points = try round(image, RoundCornerImageProcessor(cornerRadius: 6))
        #expect(try round(image, RoundCornerImageProcessor(radius: .widthFraction(0.15))).firstFrame == points.firstFrame)
        #expect(try round(image, RoundCornerImageProcessor(radius: .heightFraction(0.3))).firstFrame == points.firstFrame)
        #expect(Radius.widthFraction(0.25).compute(with: CGSize(width: 40, height: 20)) == 10)
        #expect(Radius.heightFraction(0.25).compute(with: CGSize(width: 40, height: 20)) == 5)
        // On a square, half the width makes a circle: its area is πr².
        let square = TestImages.solid(width: 64, height: 64, RGBA8(r: 255, g: 255, b: 255, a: 255))
        let circle = try round(square, RoundCornerImageProcessor(radius: .widthFraction(0.5)))
        let coverage = stride(from: 3, to: circle.firstFrame.pixels.count, by: 4)
            .reduce(0.0) { $0 + Double(circle.firstFrame.pixels[$1]) / 255 }
        #expect(abs(coverage - Double.pi * 32 * 32) < 2)
    }

    @Test func radiusIsClampedToHalfTheShorterSide() throws {
        let image = TestImages.gradient(width: 40, height: 20)
        let huge = try round(image, RoundCornerImageProcessor(cornerRadius: 1000))
        let half = try round(image, RoundCornerImageProcessor(cornerRadius: 10))
        #expect(huge.firstFrame == half.firstFrame)
        #expect(huge.firstFrame.pixel(x: 20, y: 0) == image.firstFrame.pixel(x: 20, y: 0))
        let none = try round(image, RoundCornerImageProcessor(cornerRadius: -3))
        #expect(none.firstFrame == image.firstFrame)
    }

    @Test func radiusIsInPointsAtTheOptionsScale() throws {
        let image = TestImages.gradient(width: 40, height: 40)
        let atOne = try round(image, RoundCornerImageProcessor(cornerRadius: 12))
        let atTwo = try round(image, RoundCornerImageProcessor(cornerRadius: 6), options: KingfisherParsedOptionsInfo([.scaleFactor(2)]))
        #expect(atTwo.scale == 2 && atTwo.size == CGSize(width: 20, height: 20))
        #expect(atTwo.firstFrame == atOne.firstFrame)
    }

    @Test func targetSizeGivesTheTargetPixelSize() throws {
        let image = TestImages.gradient(width: 40, height: 30)
        let processor = RoundCornerImageProcessor(cornerRadius: 4, targetSize: CGSize(width: 25, height: 10))
        let result = try round(image, processor, options: KingfisherParsedOptionsInfo([.scaleFactor(2)]))
        #expect(result.pixelWidth == 50 && result.pixelHeight == 20 && result.scale == 2)
        #expect(result.firstFrame.pixel(x: 0, y: 0)?.a == 0 && result.firstFrame.pixel(x: 25, y: 10)?.a == 255)
        let data = try image.encoded(as: .PNG)
        let decoded = try #require(processor.process(item: .data(data), options: KingfisherParsedOptionsInfo(nil)))
        #expect(decoded.pixelWidth == 25 && decoded.pixelHeight == 10)
        // The helper stretches to the size it is given and rounds with a radius computed on it.
        let helper = image.kf.image(withRadius: .heightFraction(0.5), fit: CGSize(width: 20, height: 8))
        #expect(helper.pixelWidth == 20 && helper.pixelHeight == 8 && helper.firstFrame.pixel(x: 0, y: 0)?.a == 0)
        #expect(image.kf.image(withRoundRadius: 4, fit: image.size) == image.kf.image(withRadius: .point(4), fit: image.size))
        #expect(image.kf.image(withRadius: .point(4), fit: .zero) == image)
    }

    @Test func animationsAreRoundedFrameByFrame() throws {
        let frames = [TestImages.gradientFrame(width: 20, height: 20).withDuration(0.1),
                      TestImages.gradientFrame(width: 20, height: 20, seed: 3).withDuration(0.2)]
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 3))
        let result = try round(animation, RoundCornerImageProcessor(cornerRadius: 5))
        #expect(result.frames.count == 2 && result.loopCount == 3 && result.frames.map(\.duration) == [0.1, 0.2])
        for (index, frame) in result.frames.enumerated() {
            let still = try round(KFCrossPlatformImage(frame: frames[index]), RoundCornerImageProcessor(cornerRadius: 5))
            #expect(frame.pixels == still.firstFrame.pixels)
        }
    }

    @Test func identifiersEncodeEveryParameter() {
        let base = "com.onevcat.Kingfisher.RoundCornerImageProcessor"
        #expect(RoundCornerImageProcessor(cornerRadius: 8).identifier == "\(base)(8.0)")
        #expect(RoundCornerImageProcessor(radius: .widthFraction(0.5), targetSize: CGSize(width: 100, height: 50),
                                          roundingCorners: [.topLeft, .topRight], backgroundColor: .red).identifier
                == "\(base)(w_frac_0.5_(100.0, 50.0)_corner(3))_#FF0000FF")
        #expect(RoundCornerImageProcessor(radius: .heightFraction(0.25)).identifier == "\(base)(h_frac_0.25)")
        let variants = [
            RoundCornerImageProcessor(cornerRadius: 8),
            RoundCornerImageProcessor(cornerRadius: 9),
            RoundCornerImageProcessor(radius: .widthFraction(8)),
            RoundCornerImageProcessor(radius: .heightFraction(8)),
            RoundCornerImageProcessor(cornerRadius: 8, targetSize: CGSize(width: 10, height: 10)),
            RoundCornerImageProcessor(cornerRadius: 8, targetSize: CGSize(width: 10, height: 11)),
            RoundCornerImageProcessor(cornerRadius: 8, roundingCorners: .topLeft),
            RoundCornerImageProcessor(cornerRadius: 8, roundingCorners: .bottomRight),
            RoundCornerImageProcessor(cornerRadius: 8, backgroundColor: .white),
            RoundCornerImageProcessor(cornerRadius: 8, backgroundColor: KFCrossPlatformColor(white: 1, alpha: 0.5)),
        ]
        #expect(Set(variants.map(\.identifier)).count == variants.count)
        let chain = RoundCornerImageProcessor(cornerRadius: 8) |> BorderImageProcessor(border: Border())
        #expect(chain.identifier == "\(base)(8.0)|>com.onevcat.Kingfisher.BorderImageProcessor((0,0,0,255)_4.0_0.0_)")
    }
}
