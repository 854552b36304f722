import Foundation
import Testing
@testable import Kingfisher

@Suite struct SmartCropTests {
    /// A canvas filled by `background(x, y)`, with `object(x, y)` painted over the pixels of `box`.
    func scene(width: Int, height: Int, box: CGRect,
               background: (Int, Int) -> RGBA8, object: (Int, Int) -> RGBA8) -> ImageFrame {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let inside = box.contains(CGPoint(x: CGFloat(x) + 0.5, y: CGFloat(y) + 0.5))
                let color = inside ? object(x, y) : background(x, y)
                let offset = (y * width + x) * 4
                pixels[offset] = color.r
                pixels[offset + 1] = color.g
                pixels[offset + 2] = color.b
                pixels[offset + 3] = color.a
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels)
    }

    /// A grey level that falls slowly from left to right, with a little fixed pseudo-random grain.
    func greyGradient(width: Int) -> (Int, Int) -> RGBA8 {
        { x, y in
            let grain = UInt8(truncatingIfNeeded: ((x &* 7919) ^ (y &* 104_729)) % 5)
            let level = UInt8(170 - x * 60 / width) &+ grain
            return RGBA8(r: level, g: level, b: level, a: 255)
        }
    }

    @Test func keepsATexturedObjectNearTheLeftEdge() {
        let box = CGRect(x: 20, y: 120, width: 60, height: 60)
        let frame = scene(width: 600, height: 300, box: box, background: greyGradient(width: 600)) { x, y in
            ((x / 10) + (y / 10)).isMultiple(of: 2) ? RGBA8(r: 30, g: 30, b: 30, a: 255) : RGBA8(r: 230, g: 230, b: 230, a: 255)
        }
        let rect = KFCrossPlatformImage(frame: frame).smartCropRect(width: 200, height: 200)
        #expect(rect.size == CGSize(width: 200, height: 200))
        #expect(rect.contains(box), "\(rect)")
    }

    @Test func keepsASkinColouredObjectNearTheRightEdge() {
        let box = CGRect(x: 500, y: 90, width: 80, height: 110)
        let background: (Int, Int) -> RGBA8 = { _, _ in RGBA8(r: 120, g: 128, b: 140, a: 255) }
        let frame = scene(width: 600, height: 300, box: box, background: background) { _, _ in
            RGBA8(r: 224, g: 172, b: 140, a: 255)
        }
        let rect = KFCrossPlatformImage(frame: frame).smartCropRect(width: 150, height: 300)
        #expect(rect.contains(box), "\(rect)")
    }

    @Test func keepsASaturatedObjectNearTheBottom() {
        let box = CGRect(x: 100, y: 480, width: 120, height: 90)
        let background: (Int, Int) -> RGBA8 = { _, _ in RGBA8(r: 200, g: 200, b: 196, a: 255) }
        let frame = scene(width: 300, height: 600, box: box, background: background) { _, _ in
            RGBA8(r: 30, g: 60, b: 220, a: 255)
        }
        let rect = KFCrossPlatformImage(frame: frame).smartCropRect(width: 300, height: 200)
        #expect(rect.contains(box), "\(rect)")
        #expect(rect.minX == 0 && rect.width == 300)
    }

    @Test func keepsTheFaceInAPhotograph() throws {
        // A band of the astronaut portrait from scikit-image's sample data (NASA, public domain):
        // x 130..<512, y 0..<200 of the 512 × 512 original, scaled to 240 × 126 (Lanczos) and saved
        // as JPEG quality 82. The face sits in the left third, the shuttle model at the right.
        let image = try KFCrossPlatformImage(data: Fixtures.data("smartcrop/astronaut-band.jpg"))
        #expect(image.pixelWidth == 240 && image.pixelHeight == 126)
        let face = CGRect(x: 30, y: 30, width: 55, height: 65)
        let rect = image.smartCropRect(width: 120, height: 126)
        #expect(rect.contains(face), "\(rect)")
        let centred = CGRect(x: 60, y: 0, width: 120, height: 126)
        #expect(!centred.contains(face))
        let eyesAndMouth = CGRect(x: 40, y: 45, width: 40, height: 40)
        let small = image.smartCropRect(width: 60, height: 60)
        #expect(small.contains(eyesAndMouth), "\(small)")
    }

    @Test(arguments: [(400, 300), (401, 301), (257, 1000), (2000, 3)])
    func uniformImagesGetCentredCrops(width: Int, height: Int) {
        let image = TestImages.solid(width: width, height: height, RGBA8(r: 90, g: 140, b: 30, a: 255))
        for (w, h) in [(100, 100), (width / 2, height), (width, height / 3 + 1), (1, 1)] {
            let rect = image.smartCropRect(width: w, height: h)
            let (cw, ch) = (min(w, width), min(h, height))
            let expected = CGRect(x: (width - cw) / 2, y: (height - ch) / 2, width: cw, height: ch)
            #expect(rect == expected, "\(width)×\(height) cropped to \(w)×\(h)")
        }
    }

    @Test func aSmoothGradientAlsoGetsACentredCrop() {
        let frame = scene(width: 600, height: 300, box: .zero, background: greyGradient(width: 600)) { _, _ in
            RGBA8(r: 0, g: 0, b: 0, a: 255)
        }
        let rect = KFCrossPlatformImage(frame: frame).smartCropRect(width: 200, height: 300)
        #expect(rect == CGRect(x: 200, y: 0, width: 200, height: 300))
    }

    @Test func cropsToExactlyTheRequestedSize() {
        let image = KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 640, height: 480, seed: 3))
        for (w, h) in [(100, 100), (639, 1), (1, 479), (333, 222), (640, 17)] {
            let processor = SmartCroppingImageProcessor(size: CGSize(width: w, height: h))
            let result = processor.process(item: .image(image), options: KingfisherParsedOptionsInfo(nil))
            #expect(result?.pixelWidth == w && result?.pixelHeight == h)
        }
        let retina = SmartCroppingImageProcessor(size: CGSize(width: 50, height: 40))
            .process(item: .image(image), options: KingfisherParsedOptionsInfo([.scaleFactor(2)]))
        #expect(retina?.pixelWidth == 100 && retina?.pixelHeight == 80 && retina?.scale == 2)
    }

    @Test func theCropMatchesThePixelsOfItsRectangle() throws {
        let frame = TestImages.gradientFrame(width: 300, height: 200, seed: 1)
        let image = KFCrossPlatformImage(frame: frame)
        let rect = image.smartCropRect(width: 90, height: 70)
        let result = try #require(SmartCroppingImageProcessor(size: CGSize(width: 90, height: 70))
            .process(item: .image(image), options: KingfisherParsedOptionsInfo(nil)))
        let expected = frame.cropped(x: Int(rect.minX), y: Int(rect.minY), width: 90, height: 70)
        #expect(result.firstFrame.pixels == expected.pixels)
    }

    @Test func cropsLargerThanTheImageAreClamped() {
        let image = KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 120, height: 80))
        #expect(image.smartCropRect(width: 1000, height: 1000) == CGRect(x: 0, y: 0, width: 120, height: 80))
        #expect(image.smartCropRect(width: 0, height: -5) == CGRect(x: 0, y: 0, width: 120, height: 80))
        let wide = image.smartCropRect(width: 500, height: 40)
        #expect(wide.minX == 0 && wide.width == 120 && wide.height == 40)
        let result = SmartCroppingImageProcessor(size: CGSize(width: 1000, height: 50))
            .process(item: .image(image), options: KingfisherParsedOptionsInfo(nil))
        #expect(result?.pixelWidth == 120 && result?.pixelHeight == 50)
        let whole = SmartCroppingImageProcessor(size: CGSize(width: 999, height: 999))
            .process(item: .image(image), options: KingfisherParsedOptionsInfo(nil))
        #expect(whole == image)
    }

    @Test func unusableSizesLeaveTheImageAlone() {
        let image = KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 40, height: 30))
        for size in [CGSize(width: 0, height: 10), CGSize(width: CGFloat.nan, height: 10), CGSize(width: 10, height: CGFloat.infinity)] {
            let result = SmartCroppingImageProcessor(size: size).process(item: .image(image), options: KingfisherParsedOptionsInfo(nil))
            #expect(result == image)
        }
    }

    @Test func animationsAreCroppedFrameByFrameWithTheFirstFramesRectangle() throws {
        let box = CGRect(x: 10, y: 40, width: 50, height: 50)
        let skin: (Int, Int) -> RGBA8 = { _, _ in RGBA8(r: 224, g: 172, b: 140, a: 255) }
        let plain: (Int, Int) -> RGBA8 = { _, _ in RGBA8(r: 120, g: 128, b: 140, a: 255) }
        let first = scene(width: 400, height: 200, box: box, background: plain, object: skin).withDuration(0.1)
        let moved = CGRect(x: 330, y: 40, width: 50, height: 50)
        let second = scene(width: 400, height: 200, box: moved, background: plain, object: skin).withDuration(0.2)
        let third = TestImages.gradientFrame(width: 400, height: 200, seed: 4).withDuration(0.3)
        let animation = try #require(KFCrossPlatformImage(frames: [first, second, third], loopCount: 2))
        let rect = animation.smartCropRect(width: 120, height: 100)
        #expect(rect.contains(box))
        let result = try #require(SmartCroppingImageProcessor(size: CGSize(width: 120, height: 100))
            .process(item: .image(animation), options: KingfisherParsedOptionsInfo(nil)))
        #expect(result.frames.count == 3 && result.loopCount == 2)
        for (index, source) in [first, second, third].enumerated() {
            let expected = source.cropped(x: Int(rect.minX), y: Int(rect.minY), width: 120, height: 100)
            #expect(result.frames[index].pixels == expected.pixels, "frame \(index)")
            #expect(result.frames[index].duration == source.duration)
        }
    }

    @Test func encodedDataIsDecodedFirst() throws {
        let data = try Fixtures.data("smartcrop/astronaut-band.jpg")
        let result = SmartCroppingImageProcessor(size: CGSize(width: 60, height: 60))
            .process(item: .data(data), options: KingfisherParsedOptionsInfo(nil))
        #expect(result?.pixelWidth == 60 && result?.pixelHeight == 60)
        #expect(SmartCroppingImageProcessor(size: CGSize(width: 60, height: 60))
            .process(item: .data(Data([1, 2, 3])), options: KingfisherParsedOptionsInfo(nil)) == nil)
    }

    @Test func theIdentifierNamesTheSize() {
        #expect(SmartCroppingImageProcessor(size: CGSize(width: 300, height: 200)).identifier
            == "com.onevcat.Kingfisher.SmartCroppingImageProcessor((300.0, 200.0))")
    }

    @Test func transparentAndTinyImagesDoNotTrap() {
        let clear = TestImages.solid(width: 50, height: 20, RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(clear.smartCropRect(width: 10, height: 10) == CGRect(x: 20, y: 5, width: 10, height: 10))
        let dot = TestImages.solid(width: 1, height: 1, RGBA8(r: 255, g: 0, b: 0, a: 255))
        #expect(dot.smartCropRect(width: 1, height: 1) == CGRect(x: 0, y: 0, width: 1, height: 1))
        let line = KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 5000, height: 1))
        let rect = line.smartCropRect(width: 300, height: 1)
        #expect(rect.width == 300 && rect.height == 1 && rect.minX >= 0 && rect.maxX <= 5000)
    }
}
