import Foundation
import Testing
@testable import Kingfisher

@Suite struct FilterProcessorTests {
    let options = KingfisherParsedOptionsInfo(nil)

    func pixels(_ image: KFCrossPlatformImage) -> [Int] {
        image.firstFrame.pixels.map(Int.init)
    }

    func close(_ a: [Int], _ b: [Int], within tolerance: Int = 1) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// An image whose left half is opaque gradient and right half translucent or transparent.
    var mixed: KFCrossPlatformImage {
        var frame = TestImages.gradientFrame(width: 8, height: 4).pixels
        for y in 0..<4 {
            for x in 4..<8 {
                let offset = (y * 8 + x) * 4
                let alpha = x == 7 ? 0 : 90
                for c in 0..<3 { frame[offset + c] = UInt8(Int(frame[offset + c]) * alpha / 255) }
                frame[offset + 3] = UInt8(alpha)
            }
        }
        return KFCrossPlatformImage(frame: ImageFrame(unchecked: 8, height: 4, pixels: frame))
    }

    // MARK: Tint

    @Test func tintIsTheColourSourceOverTheImage() throws {
        let image = mixed
        let tint = KFCrossPlatformColor(red: 1, green: 0.5, blue: 0, alpha: 0.5)
        let result = image.kf.tinted(with: tint)
        let c = tint.premultiplied
        let keep = 255 - Int(c.a)
        let source = pixels(image)
        let expected = source.enumerated().map { index, value -> Int in
            let color = [Int(c.r), Int(c.g), Int(c.b), Int(c.a)][index % 4]
            return color + Int((Double(value * keep) / 255).rounded())
        }
        #expect(pixels(result) == expected)
        // Opaque pixels stay opaque.
        #expect(result.firstFrame.pixel(x: 0, y: 0)?.a == 255)
    }

    @Test func opaqueTintGivesTheColourEverywhereAndClearTintNothing() {
        let image = mixed
        let result = image.kf.tinted(with: .red)
        #expect(result.firstFrame.pixels == TestImages.solid(width: 8, height: 4, RGBA8(r: 255, g: 0, b: 0, a: 255)).firstFrame.pixels)
        #expect(result.isOpaque)
        #expect(image.kf.tinted(with: .clear) == image)
    }

    @Test func tintProcessorNamesItsColour() throws {
        let processor = TintImageProcessor(tint: KFCrossPlatformColor(red: 1, green: 0, blue: 0, alpha: 0.5))
        #expect(processor.identifier == "com.onevcat.Kingfisher.TintImageProcessor((255,0,0,128))")
        #expect(TintImageProcessor(tint: .red).identifier != processor.identifier)
        let image = TestImages.gradient(width: 6, height: 6)
        let processed = try #require(processor.process(item: .image(image), options: options))
        #expect(processed.firstFrame == image.kf.tinted(with: processor.tint).firstFrame)
    }

    // MARK: Overlay

    @Test func overlayExtremes() {
        let image = mixed
        let blue = KFCrossPlatformColor.blue
        // Fraction 1: the image shows through entirely.
        #expect(image.kf.overlaying(with: blue, fraction: 1) == image)
        // Fraction 0: the colour in the image's shape, alpha kept.
        let solid = image.kf.overlaying(with: blue, fraction: 0).firstFrame
        for (index, original) in image.firstFrame.pixels.enumerated() where index % 4 == 3 {
            let result = (0..<4).map { solid.pixels[index - 3 + $0] }
            let alpha = original
            #expect(result == [0, 0, alpha, alpha])
        }
        // A fully transparent colour changes nothing.
        #expect(image.kf.overlaying(with: .clear, fraction: 0) == image)
    }

    @Test func overlayMixesStraightColours() {
        let grey = TestImages.solid(width: 2, height: 2, RGBA8(r: 100, g: 100, b: 100, a: 255))
        let half = grey.kf.overlaying(with: .white, fraction: 0.5)
        #expect(close(pixels(half), [Int](repeating: 0, count: 16).enumerated().map { $0.offset % 4 == 3 ? 255 : 178 }))
        let translucent = TestImages.solid(width: 1, height: 1, RGBA8(r: 40, g: 40, b: 40, a: 80))
        // Straight 0.5 mixed half and half with white is 0.75, at alpha 80: 60.
        #expect(close(pixels(translucent.kf.overlaying(with: .white, fraction: 0.5)), [60, 60, 60, 80]))
        let quarter = KFCrossPlatformColor(white: 1, alpha: 0.5)
        #expect(close(Array(pixels(grey.kf.overlaying(with: quarter, fraction: 0.5)).prefix(4)), [139, 139, 139, 255]))
    }

    @Test func overlayProcessorNamesColourAndFraction() throws {
        let processor = OverlayImageProcessor(overlay: .blue)
        #expect(processor.identifier == "com.onevcat.Kingfisher.OverlayImageProcessor((0,0,255,255)_0.5)")
        #expect(OverlayImageProcessor(overlay: .blue, fraction: 0.6).identifier != processor.identifier)
        #expect(OverlayImageProcessor(overlay: .red).identifier != processor.identifier)
        let image = TestImages.gradient(width: 6, height: 6)
        let processed = try #require(processor.process(item: .image(image), options: options))
        #expect(processed.firstFrame == image.kf.overlaying(with: .blue, fraction: 0.5).firstFrame)
    }

    // MARK: Colour controls

    @Test func neutralColourControlsGiveTheImageBack() throws {
        let image = mixed
        #expect(image.kf.adjusted(brightness: 0, contrast: 1, saturation: 1, inputEV: 0) == image)
        let processor = ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 1, inputEV: 0)
        let processed = try #require(processor.process(item: .image(image), options: options))
        #expect(processed.firstFrame.pixels == image.firstFrame.pixels)
    }

    @Test func zeroSaturationIsGrey() {
        let result = mixed.kf.adjusted(brightness: 0, contrast: 1, saturation: 0, inputEV: 0).firstFrame
        for offset in stride(from: 0, to: result.pixels.count, by: 4) {
            #expect(result.pixels[offset] == result.pixels[offset + 1] && result.pixels[offset + 1] == result.pixels[offset + 2])
        }
        // Rec. 709 luma of pure red: 0.2126.
        let red = TestImages.solid(width: 1, height: 1, RGBA8(r: 255, g: 0, b: 0, a: 255))
        #expect(close(pixels(red.kf.adjusted(brightness: 0, contrast: 1, saturation: 0, inputEV: 0)), [54, 54, 54, 255]))
    }

    @Test func brightnessContrastAndExposure() {
        let image = TestImages.solid(width: 1, height: 1, RGBA8(r: 60, g: 128, b: 200, a: 255))
        #expect(close(pixels(image.kf.adjusted(brightness: 0.2, contrast: 1, saturation: 1, inputEV: 0)), [111, 179, 251, 255]))
        #expect(pixels(image.kf.adjusted(brightness: -1, contrast: 1, saturation: 1, inputEV: 0)) == [0, 0, 0, 255])
        #expect(close(pixels(image.kf.adjusted(brightness: 0, contrast: 0, saturation: 1, inputEV: 0)), [128, 128, 128, 255]))
        #expect(close(pixels(image.kf.adjusted(brightness: 0, contrast: 2, saturation: 1, inputEV: 0)), [0, 128, 255, 255]))
        #expect(close(pixels(image.kf.adjusted(brightness: 0, contrast: 1, saturation: 1, inputEV: 1)), [120, 255, 255, 255]))
        // Straight colour, not premultiplied: grey 0.4 at alpha 0.5 brightened by 0.2 is 0.6 at alpha 0.5.
        let translucent = TestImages.solid(width: 1, height: 1, RGBA8(r: 51, g: 51, b: 51, a: 128))
        #expect(close(pixels(translucent.kf.adjusted(brightness: 0.2, contrast: 1, saturation: 1, inputEV: 0)), [77, 77, 77, 128]))
        // Extreme and non-finite values stay within the pixel's alpha.
        for value: CGFloat in [.infinity, -.infinity, .nan, 1e30, -1e30] {
            let result = mixed.kf.adjusted(brightness: value, contrast: value, saturation: value, inputEV: value).firstFrame
            for offset in stride(from: 0, to: result.pixels.count, by: 4) {
                let alpha = result.pixels[offset + 3]
                #expect(result.pixels[offset] <= alpha && result.pixels[offset + 1] <= alpha && result.pixels[offset + 2] <= alpha)
            }
            #expect(result.pixels.enumerated().filter { $0.offset % 4 == 3 }.map(\.element)
                    == mixed.firstFrame.pixels.enumerated().filter { $0.offset % 4 == 3 }.map(\.element))
        }
    }

    @Test func blackWhiteIsKingfishersColourControls() throws {
        let processor = BlackWhiteProcessor()
        #expect(processor.identifier == "com.onevcat.Kingfisher.BlackWhiteProcessor")
        let image = TestImages.gradient(width: 10, height: 6)
        let result = try #require(processor.process(item: .image(image), options: options))
        let reference = image.kf.adjusted(brightness: 0, contrast: 1, saturation: 0, inputEV: 0.7)
        #expect(result.firstFrame == reference.firstFrame)
        for offset in stride(from: 0, to: result.firstFrame.pixels.count, by: 4) {
            let p = result.firstFrame.pixels
            #expect(p[offset] == p[offset + 1] && p[offset + 1] == p[offset + 2])
        }
    }

    @Test func colourControlIdentifiersEncodeEveryParameter() {
        let base = ColorControlsProcessor(brightness: 0.1, contrast: 1.2, saturation: 0.5, inputEV: 0.3)
        #expect(base.identifier == "com.onevcat.Kingfisher.ColorControlsProcessor(0.1_1.2_0.5_0.3)")
        let variants = [base,
                        ColorControlsProcessor(brightness: 0.2, contrast: 1.2, saturation: 0.5, inputEV: 0.3),
                        ColorControlsProcessor(brightness: 0.1, contrast: 1.3, saturation: 0.5, inputEV: 0.3),
                        ColorControlsProcessor(brightness: 0.1, contrast: 1.2, saturation: 0.6, inputEV: 0.3),
                        ColorControlsProcessor(brightness: 0.1, contrast: 1.2, saturation: 0.5, inputEV: 0.4)]
        #expect(Set(variants.map(\.identifier)).count == variants.count)
    }

    // MARK: Chains and animations

    @Test func processorsChainWithTheirIdentifiers() throws {
        let chain = BlurImageProcessor(blurRadius: 2) |> TintImageProcessor(tint: .red) |> BlackWhiteProcessor()
        #expect(chain.identifier == "com.onevcat.Kingfisher.BlurImageProcessor(2.0)|>com.onevcat.Kingfisher.TintImageProcessor((255,0,0,255))|>com.onevcat.Kingfisher.BlackWhiteProcessor")
        let image = TestImages.gradient(width: 12, height: 12)
        let data = try image.encoded(as: .PNG)
        let result = try #require(chain.process(item: .data(data), options: KingfisherParsedOptionsInfo([.scaleFactor(2)])))
        #expect(result.scale == 2 && result.pixelWidth == 12)
        let p = result.firstFrame.pixels
        #expect(p[0] == p[1] && p[1] == p[2] && p[3] == 255)
    }

    @Test func animationsKeepFramesAndDurations() throws {
        let frames = [TestImages.gradientFrame(width: 5, height: 5, alpha: true).withDuration(0.05),
                      TestImages.gradientFrame(width: 5, height: 5, alpha: true, seed: 7).withDuration(0.3)]
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 4, scale: 2))
        let results = [animation.kf.tinted(with: KFCrossPlatformColor(red: 0, green: 1, blue: 0, alpha: 0.3)),
                       animation.kf.overlaying(with: .red, fraction: 0.3),
                       animation.kf.adjusted(brightness: 0.1, contrast: 1.1, saturation: 0.4, inputEV: 0.2)]
        for result in results {
            #expect(result.frames.count == 2 && result.loopCount == 4 && result.scale == 2)
            #expect(result.frames.map(\.duration) == [0.05, 0.3])
            #expect(result.frames[0] != result.frames[1])
        }
    }
}
