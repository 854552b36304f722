import Foundation
import Testing
@testable import Kingfisher

/// Images whose pixels say where they came from, for the geometry tests.
enum GeometryTestImages {
    static let red = RGBA8(r: 255, g: 0, b: 0, a: 255)
    static let green = RGBA8(r: 0, g: 255, b: 0, a: 255)
    static let blue = RGBA8(r: 0, g: 0, b: 255, a: 255)
    static let white = RGBA8(r: 255, g: 255, b: 255, a: 255)
    static let black = RGBA8(r: 0, g: 0, b: 0, a: 255)

    /// Top-left red, top-right green, bottom-left blue, bottom-right white.
    static func quadrants(width: Int, height: Int) -> KFCrossPlatformImage {
        KFCrossPlatformImage(frame: painted(width: width, height: height) { x, y in
            switch (x < width / 2, y < height / 2) {
            case (true, true): return red
            case (false, true): return green
            case (true, false): return blue
            case (false, false): return white
            }
        })
    }

    /// Black everywhere but one white pixel at (`x`, `y`).
    static func marked(width: Int, height: Int, x: Int, y: Int) -> KFCrossPlatformImage {
        KFCrossPlatformImage(frame: painted(width: width, height: height) { px, py in px == x && py == y ? white : black })
    }

    static func painted(width: Int, height: Int, _ color: (Int, Int) -> RGBA8) -> ImageFrame {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y)
                let offset = (y * width + x) * 4
                pixels[offset] = c.r
                pixels[offset + 1] = c.g
                pixels[offset + 2] = c.b
                pixels[offset + 3] = c.a
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels)
    }

    /// `[x, y]` of the white pixels of `image`, in reading order.
    static func whitePixel(_ image: KFCrossPlatformImage) -> [Int] {
        var found: [Int] = []
        for y in 0..<image.pixelHeight {
            for x in 0..<image.pixelWidth where image.firstFrame.pixel(x: x, y: y) == white {
                found += [x, y]
            }
        }
        return found
    }

    /// Three frames of `width` × `height`, durations 0.1, 0.2, 0.3, looping twice, at scale 2.
    static func animation(width: Int, height: Int) throws -> KFCrossPlatformImage {
        let frames = [0.1, 0.2, 0.3].enumerated().map { index, duration in
            TestImages.gradientFrame(width: width, height: height, alpha: index == 1, seed: index).withDuration(duration)
        }
        return try #require(KFCrossPlatformImage(frames: frames, loopCount: 2, scale: 2))
    }
}

@Suite struct GeometryOperationsTests {
    typealias Images = GeometryTestImages

    @Test func resampledGivesTheExactPixelSize() {
        let image = TestImages.gradient(width: 40, height: 30).kf.scaled(to: 2)
        let resized = image.resampled(toPixelWidth: 17, height: 45)
        #expect(resized.pixelWidth == 17 && resized.pixelHeight == 45 && resized.scale == 2)
        #expect(image.resampled(toPixelWidth: 40, height: 30) == image)
        let tiny = image.resampled(toPixelWidth: 0, height: -3)
        #expect(tiny.pixelWidth == 1 && tiny.pixelHeight == 1)
    }

    @Test func croppedClampsToTheImageAndKeepsAPixel() {
        let image = Images.quadrants(width: 8, height: 6)
        let inside = image.cropped(toPixelRect: CGRect(x: 4, y: 0, width: 3, height: 2))
        #expect(inside.pixelWidth == 3 && inside.pixelHeight == 2)
        #expect(inside.firstFrame.pixel(x: 0, y: 0) == Images.green)
        let overhanging = image.cropped(toPixelRect: CGRect(x: -2, y: 4, width: 5, height: 10))
        #expect(overhanging.pixelWidth == 3 && overhanging.pixelHeight == 2)
        #expect(overhanging.firstFrame.pixel(x: 0, y: 0) == Images.blue)
        let missing = image.cropped(toPixelRect: CGRect(x: 50, y: 50, width: 4, height: 4))
        #expect(missing.pixelWidth == 1 && missing.pixelHeight == 1)
        #expect(missing.firstFrame.pixel(x: 0, y: 0) == Images.white)
        let empty = image.cropped(toPixelRect: CGRect(x: 1, y: 1, width: 0, height: 0))
        #expect(empty.pixelWidth == 1 && empty.pixelHeight == 1)
        let negative = image.cropped(toPixelRect: CGRect(x: 8, y: 6, width: -2, height: -3))
        #expect(negative.pixelWidth == 2 && negative.pixelHeight == 3 && negative.firstFrame.pixel(x: 0, y: 0) == Images.white)
        #expect(image.cropped(toPixelRect: CGRect(x: CGFloat.nan, y: 0, width: CGFloat.infinity, height: 6)) == image)
        let rounded = image.cropped(toPixelRect: CGRect(x: 0.5, y: 0.4, width: 2, height: 2))
        #expect(rounded.pixelWidth == 2 && rounded.pixelHeight == 2)
    }

    @Test func flipsAndTurnsMoveAMarkedPixel() throws {
        let image = Images.marked(width: 4, height: 3, x: 1, y: 0)
        #expect(Images.whitePixel(image.flipped(horizontal: true, vertical: false)) == [2, 0])
        #expect(Images.whitePixel(image.flipped(horizontal: false, vertical: true)) == [1, 2])
        #expect(Images.whitePixel(image.flipped(horizontal: true, vertical: true)) == [2, 2])
        #expect(image.flipped(horizontal: false, vertical: false) == image)

        let quarter = image.rotated(quarterTurns: 1)
        #expect(quarter.pixelWidth == 3 && quarter.pixelHeight == 4)
        #expect(Images.whitePixel(quarter) == [2, 1])
        #expect(Images.whitePixel(image.rotated(quarterTurns: 2)) == [2, 2])
        let threeQuarters = image.rotated(quarterTurns: 3)
        #expect(threeQuarters.pixelWidth == 3 && threeQuarters.pixelHeight == 4)
        #expect(Images.whitePixel(threeQuarters) == [0, 2])
        #expect(image.rotated(quarterTurns: -1) == threeQuarters)
        #expect(image.rotated(quarterTurns: 5) == quarter)
        #expect(image.rotated(quarterTurns: 4) == image && image.rotated(quarterTurns: 0) == image)
    }

    /// The fast flips and turns move pixels exactly as the EXIF orientation maps do, on odd sizes
    /// larger than one tile.
    @Test func flipsAndTurnsMatchTheOrientationMaps() {
        let frame = TestImages.gradientFrame(width: 45, height: 33, alpha: true)
        let image = KFCrossPlatformImage(frame: frame)
        let cases: [(KFCrossPlatformImage, ImageOrientation)] = [
            (image.flipped(horizontal: true, vertical: false), .upMirrored),
            (image.flipped(horizontal: false, vertical: true), .downMirrored),
            (image.flipped(horizontal: true, vertical: true), .down),
            (image.rotated(quarterTurns: 1), .right),
            (image.rotated(quarterTurns: 2), .down),
            (image.rotated(quarterTurns: 3), .left),
        ]
        for (result, orientation) in cases {
            #expect(result.firstFrame == orientation.apply(to: frame), "\(orientation)")
        }
    }

    @Test func extendDrawsOverAPremultipliedBackground() {
        let image = TestImages.solid(width: 2, height: 2, Images.red)
        let background = KFCrossPlatformColor(red: 0, green: 0, blue: 1, alpha: 128.0 / 255)
        let canvas = image.extended(toPixelWidth: 6, height: 4, x: 1, y: 1, background: background)
        #expect(canvas.pixelWidth == 6 && canvas.pixelHeight == 4 && !canvas.isOpaque)
        #expect(canvas.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 0, g: 0, b: 128, a: 128))
        #expect(canvas.firstFrame.pixel(x: 5, y: 3) == RGBA8(r: 0, g: 0, b: 128, a: 128))
        #expect(canvas.firstFrame.pixel(x: 1, y: 1) == Images.red && canvas.firstFrame.pixel(x: 2, y: 2) == Images.red)
        #expect(canvas.firstFrame.pixel(x: 3, y: 1) == RGBA8(r: 0, g: 0, b: 128, a: 128))

        // Negative positions clip: only the image's right column and bottom row show.
        let clipped = Images.quadrants(width: 4, height: 4).extended(toPixelWidth: 3, height: 3, x: -3, y: -3, background: .black)
        #expect(clipped.firstFrame.pixel(x: 0, y: 0) == Images.white && clipped.isOpaque)
        #expect(clipped.firstFrame.pixel(x: 1, y: 0) == Images.black && clipped.firstFrame.pixel(x: 0, y: 1) == Images.black)
        let outside = image.extended(toPixelWidth: 2, height: 2, x: Int.min, y: Int.max, background: .white)
        #expect(outside.frames[0].pixels.allSatisfy { $0 == 255 })

        // A semi-transparent pixel over a semi-transparent background: s + b·(1 − αs).
        let translucent = TestImages.solid(width: 1, height: 1, RGBA8(r: 100, g: 0, b: 0, a: 128))
        let over = translucent.extended(toPixelWidth: 2, height: 1, x: 0, y: 0, background: background)
        #expect(over.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 100, g: 0, b: 64, a: 192))
        let onClear = translucent.extended(toPixelWidth: 2, height: 1, x: 1, y: 0, background: .clear)
        #expect(onClear.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 100, g: 0, b: 0, a: 128))
        #expect(onClear.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }

    @Test func padAddsTheRightMargins() {
        let image = TestImages.solid(width: 3, height: 2, Images.red)
        let padded = image.padded(top: 1, right: 2, bottom: 3, left: 4, background: .white)
        #expect(padded.pixelWidth == 9 && padded.pixelHeight == 6)
        #expect(padded.firstFrame.pixel(x: 4, y: 1) == Images.red && padded.firstFrame.pixel(x: 6, y: 2) == Images.red)
        #expect(padded.firstFrame.pixel(x: 3, y: 1) == Images.white && padded.firstFrame.pixel(x: 7, y: 1) == Images.white)
        #expect(padded.firstFrame.pixel(x: 4, y: 0) == Images.white && padded.firstFrame.pixel(x: 4, y: 3) == Images.white)
        #expect(image.padded(top: 0, right: -4, bottom: 0, left: 0, background: .white) == image)
    }

    @Test func levelsFollowTheFormula() {
        // contrast 1.5, brightness 10: c → 1.5·(c − 128) + 138.
        let frame = Images.painted(width: 4, height: 1) { x, _ in
            [RGBA8(r: 100, g: 200, b: 250, a: 255), RGBA8(r: 0, g: 128, b: 127, a: 255),
             RGBA8(r: 0, g: 0, b: 0, a: 0), RGBA8(r: 255, g: 255, b: 255, a: 255)][x]
        }
        let adjusted = KFCrossPlatformImage(frame: frame).levelsAdjusted(contrast: 1.5, brightness: 10)
        #expect(adjusted.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 96, g: 246, b: 255, a: 255))
        #expect(adjusted.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 0, g: 138, b: 137, a: 255))  // 136.5 rounds up
        #expect(adjusted.firstFrame.pixel(x: 2, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(adjusted.firstFrame.pixel(x: 3, y: 0) == RGBA8(r: 255, g: 255, b: 255, a: 255))
        let identity = TestImages.gradient(width: 9, height: 7, alpha: true)
        #expect(identity.levelsAdjusted(contrast: 1, brightness: 0) == identity)
        #expect(identity.levelsAdjusted(contrast: .nan, brightness: .nan) == identity)
    }

    /// Partly transparent pixels get the straight map, premultiplied again, within rounding.
    @Test func levelsOnPremultipliedPixelsMatchTheStraightMap() {
        let image = TestImages.gradient(width: 64, height: 16, alpha: true)
        let adjusted = image.levelsAdjusted(contrast: 1.44, brightness: -25)
        let straight = PixelConversion.unpremultiplied(image.firstFrame.pixels)
        var worst = 0
        for index in stride(from: 0, to: straight.count, by: 4) {
            let alpha = Double(straight[index + 3])
            for channel in 0..<3 {
                let mapped = min(max((1.44 * (Double(straight[index + channel]) - 128) + 128 - 25).rounded(), 0), 255)
                let expected = Int((mapped * alpha / 255).rounded())
                worst = max(worst, abs(expected - Int(adjusted.firstFrame.pixels[index + channel])))
            }
            #expect(adjusted.firstFrame.pixels[index + 3] == straight[index + 3])
        }
        #expect(worst <= 2)
    }

    @Test func thumborLevelsUseThumborsArithmetic() {
        #expect(ColorLevelsImageProcessor.thumborBrightness(10).brightness == 25)  // 25.5 truncated
        #expect(ColorLevelsImageProcessor.thumborBrightness(-10).brightness == -25)
        #expect(ColorLevelsImageProcessor.thumborBrightness(10).contrast == 1)
        #expect(ColorLevelsImageProcessor.thumborContrast(20).contrast == 1.44)
        #expect(ColorLevelsImageProcessor.thumborContrast(-50).contrast == 0.25)
        #expect(ColorLevelsImageProcessor.thumborContrast(20).brightness == 0)
        let image = TestImages.solid(width: 1, height: 1, RGBA8(r: 100, g: 200, b: 28, a: 255))
        let brighter = ColorLevelsImageProcessor.thumborBrightness(10).process(item: .image(image), options: KingfisherParsedOptionsInfo(nil))
        #expect(brighter?.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 125, g: 225, b: 53, a: 255))
        // 1.44·(100 − 128) + 128 = 87.68; 1.44·72 + 128 = 231.68; 1.44·(−100) + 128 = −16.
        let contrasted = ColorLevelsImageProcessor.thumborContrast(20).process(item: .image(image), options: KingfisherParsedOptionsInfo(nil))
        #expect(contrasted?.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 88, g: 232, b: 0, a: 255))
    }

    @Test func grayscaleIsRec601Luma() {
        let frame = Images.painted(width: 5, height: 1) { x, _ in
            [Images.red, Images.green, Images.blue, RGBA8(r: 10, g: 20, b: 30, a: 255), RGBA8(r: 50, g: 0, b: 0, a: 128)][x]
        }
        let grey = KFCrossPlatformImage(frame: frame).grayscaled()
        let expected: [(UInt8, UInt8)] = [(76, 255), (150, 255), (29, 255), (18, 255), (15, 128)]
        for (x, (luma, alpha)) in expected.enumerated() {
            #expect(grey.firstFrame.pixel(x: x, y: 0) == RGBA8(r: luma, g: luma, b: luma, a: alpha), "pixel \(x)")
        }
    }

    @Test func everyOperationKeepsTheAnimation() throws {
        let animation = try Images.animation(width: 12, height: 8)
        let results: [KFCrossPlatformImage] = [
            animation.resampled(toPixelWidth: 6, height: 5),
            animation.cropped(toPixelRect: CGRect(x: 2, y: 2, width: 5, height: 5)),
            animation.flipped(horizontal: true, vertical: false),
            animation.rotated(quarterTurns: 1),
            animation.extended(toPixelWidth: 20, height: 20, x: 3, y: 4, background: .red),
            animation.padded(top: 1, right: 1, bottom: 1, left: 1, background: .clear),
            animation.levelsAdjusted(contrast: 1.2, brightness: 5),
            animation.grayscaled(),
        ]
        for result in results {
            #expect(result.frames.map(\.duration) == [0.1, 0.2, 0.3])
            #expect(result.loopCount == 2 && result.scale == 2)
            #expect(result.frames.allSatisfy { $0.width == result.pixelWidth && $0.height == result.pixelHeight })
        }
        // Frames are transformed one by one, not all copies of the first.
        let turned = animation.rotated(quarterTurns: 1)
        #expect(turned.frames[1] == animation.frames[1].turnedClockwise())
    }
}

private extension ImageFrame {
    /// The frame turned a quarter clockwise, pixel by pixel, as the tests expect it.
    func turnedClockwise() -> ImageFrame {
        var pixels = [UInt8](repeating: 0, count: self.pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let target = (x * height + (height - 1 - y)) * 4
                let source = (y * width + x) * 4
                pixels[target..<target + 4] = self.pixels[source..<source + 4]
            }
        }
        return ImageFrame(unchecked: height, height: width, pixels: pixels, duration: duration)
    }
}

@Suite struct DroppingAlphaTests {
    @Test func eachPixelKeepsItsOwnColourAtFullOpacity() {
        // Premultiplied: (100, 50, 0) at alpha 128 is straight (199, 100, 0); alpha 0 becomes black.
        let pixels: [UInt8] = [100, 50, 0, 128, 0, 0, 0, 0, 10, 20, 30, 255]
        let image = KFCrossPlatformImage(frame: ImageFrame(unchecked: 3, height: 1, pixels: pixels))
        let opaque = image.droppingAlpha()
        #expect(opaque.isOpaque)
        #expect(opaque.firstFrame.pixels == [199, 100, 0, 255, 0, 0, 0, 255, 10, 20, 30, 255])
    }
}
