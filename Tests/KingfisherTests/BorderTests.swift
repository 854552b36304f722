import Foundation
import Testing
@testable import Kingfisher

@Suite struct BorderTests {
    let blue = RGBA8(r: 0, g: 0, b: 255, a: 255)
    let red = RGBA8(r: 255, g: 0, b: 0, a: 255)

    func bordered(_ image: KFCrossPlatformImage, _ border: Border,
                  options: KingfisherParsedOptionsInfo = KingfisherParsedOptionsInfo(nil)) throws -> KFCrossPlatformImage {
        let result = try #require(BorderImageProcessor(border: border).process(item: .image(image), options: options))
        #expect(ShapeChecks.isPremultiplied(result))
        #expect(result.pixelWidth == image.pixelWidth && result.pixelHeight == image.pixelHeight)
        return result
    }

    @Test(arguments: [1, 3, 5])
    func straightEdgesGetExactlyTheLineWidth(width: Int) throws {
        let image = TestImages.gradient(width: 24, height: 18)
        let result = try bordered(image, Border(color: .red, lineWidth: CGFloat(width)))
        let frame = result.firstFrame, original = image.firstFrame
        for y in 0..<18 {
            for x in 0..<24 {
                let inBorder = x < width || y < width || x >= 24 - width || y >= 18 - width
                #expect(frame.pixel(x: x, y: y) == (inBorder ? red : original.pixel(x: x, y: y)), "pixel \(x),\(y)")
            }
        }
    }

    @Test func lineWidthIsInPointsAtTheOptionsScale() throws {
        let image = TestImages.solid(width: 20, height: 20, blue)
        let result = try bordered(image, Border(color: .red, lineWidth: 2), options: KingfisherParsedOptionsInfo([.scaleFactor(2)]))
        #expect(result.scale == 2)
        #expect(result.firstFrame.pixel(x: 3, y: 10) == red && result.firstFrame.pixel(x: 4, y: 10) == blue)
        // 1 point at scale 1.5 is a pixel and a half: the second pixel is half covered.
        let half = try bordered(image, Border(color: .red, lineWidth: 1), options: KingfisherParsedOptionsInfo([.scaleFactor(1.5)]))
        #expect(half.firstFrame.pixel(x: 0, y: 10) == red)
        #expect(half.firstFrame.pixel(x: 1, y: 10) == RGBA8(r: 128, g: 0, b: 127, a: 255))
        #expect(half.firstFrame.pixel(x: 2, y: 10) == blue)
    }

    @Test func roundedBordersAreAntialiasedAndLeaveTheCornerOutside() throws {
        let image = TestImages.solid(width: 40, height: 40, blue)
        let result = try bordered(image, Border(color: .red, lineWidth: 3, radius: .point(12)))
        let frame = result.firstFrame
        #expect(frame.pixel(x: 0, y: 0) == blue)
        #expect(frame.pixel(x: 0, y: 20) == red && frame.pixel(x: 2, y: 20) == red && frame.pixel(x: 3, y: 20) == blue)
        #expect(frame.pixel(x: 20, y: 39) == red && frame.pixel(x: 20, y: 36) == blue)
        // Along the diagonal: image, a mix, red, a mix, image.
        let reds = (0..<20).map { Int(frame.pixel(x: $0, y: $0)?.r ?? 0) }
        #expect(reds.first == 0 && reds.last == 0 && reds.contains(255))
        #expect(reds.filter { $0 > 0 && $0 < 255 }.count >= 2)
        // The outer edge is the round-corner arc of the same radius.
        let outer = RoundedRectCoverage(left: 0, top: 0, right: 40, bottom: 40, radius: 12, corners: .all)
        let inner = RoundedRectCoverage(left: 3, top: 3, right: 37, bottom: 37, radius: 9, corners: .all)
        for y in 0..<12 {
            for x in 0..<12 {
                let band = ShapeChecks.sampledCoverage(outer, x: x, y: y) - ShapeChecks.sampledCoverage(inner, x: x, y: y)
                let pixel = try #require(frame.pixel(x: x, y: y))
                #expect(abs(Double(pixel.r) - band * 255) <= 4 && Int(pixel.r) + Int(pixel.b) >= 254, "pixel \(x),\(y)")
            }
        }
    }

    @Test func onlyTheSelectedCornersAreRounded() throws {
        let image = TestImages.solid(width: 30, height: 30, blue)
        let result = try bordered(image, Border(color: .red, lineWidth: 2, radius: .point(10), roundingCorners: .topRight))
        #expect(result.firstFrame.pixel(x: 29, y: 0) == blue)
        for (x, y) in [(0, 0), (0, 29), (29, 29)] {
            #expect(result.firstFrame.pixel(x: x, y: y) == red)
        }
    }

    @Test func roundCornerThenBorderMakesARing() throws {
        let image = TestImages.solid(width: 40, height: 40, blue)
        let processor = RoundCornerImageProcessor(cornerRadius: 12) |> BorderImageProcessor(border: Border(color: .red, lineWidth: 2, radius: .point(12)))
        let result = try #require(processor.process(item: .image(image), options: KingfisherParsedOptionsInfo(nil)))
        #expect(ShapeChecks.isPremultiplied(result))
        #expect(result.firstFrame.pixel(x: 0, y: 0)?.a == 0)
        #expect(result.firstFrame.pixel(x: 0, y: 20) == red && result.firstFrame.pixel(x: 20, y: 20) == blue)
        // The ring's outer edge is the cut arc: nothing is painted outside it, and an edge pixel is the
        // border colour over the partly covered image pixel (alpha b + c(1 − b), with b ≈ c here).
        let rounded = try #require(RoundCornerImageProcessor(cornerRadius: 12).process(item: .image(image), options: KingfisherParsedOptionsInfo(nil)))
        for y in 0..<12 {
            for x in 0..<12 {
                let cut = Double(try #require(rounded.firstFrame.pixel(x: x, y: y)?.a)) / 255
                let ring = Double(try #require(result.firstFrame.pixel(x: x, y: y)?.a)) / 255
                #expect(cut == 0 ? ring == 0 : ring >= cut, "pixel \(x),\(y)")
                #expect(ring <= cut + cut * (1 - cut) + 0.03, "pixel \(x),\(y)")
            }
        }
    }

    @Test func translucentColoursBlendOverTheImage() throws {
        let image = TestImages.gradient(width: 20, height: 20, alpha: true)
        let result = try bordered(image, Border(color: KFCrossPlatformColor(red: 1, green: 0, blue: 0, alpha: 0.5), lineWidth: 2))
        let source = try #require(image.firstFrame.pixel(x: 10, y: 0))
        let pixel = try #require(result.firstFrame.pixel(x: 10, y: 0))
        #expect(abs(Double(pixel.r) - (128 + Double(source.r) * 127 / 255)) <= 1)
        #expect(abs(Double(pixel.a) - (128 + Double(source.a) * 127 / 255)) <= 1)
        #expect(result.firstFrame.pixel(x: 10, y: 2) == image.firstFrame.pixel(x: 10, y: 2))
    }

    @Test func degenerateWidthsAreHandled() throws {
        let image = TestImages.gradient(width: 10, height: 8)
        #expect(try bordered(image, Border(lineWidth: 0)) == image)
        #expect(try bordered(image, Border(lineWidth: .nan)) == image)
        let covered = try bordered(image, Border(color: .red, lineWidth: 50))
        #expect(covered.firstFrame.pixels == TestImages.solid(width: 10, height: 8, red).firstFrame.pixels)
    }

    @Test func animationsGetABorderOnEveryFrame() throws {
        let frames = [TestImages.gradientFrame(width: 12, height: 12).withDuration(0.1),
                      TestImages.gradientFrame(width: 12, height: 12, seed: 2).withDuration(0.3)]
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 1))
        let result = try bordered(animation, Border(color: .red, lineWidth: 1))
        #expect(result.frames.map(\.duration) == [0.1, 0.3] && result.loopCount == 1)
        #expect(result.frames.allSatisfy { $0.pixel(x: 0, y: 5) == red && $0.pixel(x: 11, y: 11) == red })
        #expect(result.frames[1].pixel(x: 5, y: 5) == frames[1].pixel(x: 5, y: 5))
    }

    @Test func identifiersEncodeEveryParameter() {
        let prefix = "com.onevcat.Kingfisher.BorderImageProcessor"
        #expect(BorderImageProcessor(border: Border()).identifier == "\(prefix)((0,0,0,255)_4.0_0.0_)")
        #expect(BorderImageProcessor(border: Border(color: .red, lineWidth: 2, radius: .heightFraction(0.5),
                                                    roundingCorners: .topLeft)).identifier
                == "\(prefix)((255,0,0,255)_2.0_h_frac_0.5__corner(1))")
        let variants = [
            Border(), Border(color: .white), Border(lineWidth: 3), Border(radius: .point(2)),
            Border(radius: .widthFraction(0.1)), Border(roundingCorners: .bottomLeft),
        ].map { BorderImageProcessor(border: $0).identifier }
        #expect(Set(variants).count == variants.count)
        #expect((BorderImageProcessor(border: Border()) |> DefaultImageProcessor.default).identifier == "\(prefix)((0,0,0,255)_4.0_0.0_)|>")
    }
}
