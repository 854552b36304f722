import Foundation
import Testing
@testable import Kingfisher

@Suite struct BlurTests {
    /// A frame of opaque black columns left of `edge` and opaque white from `edge` on.
    func stepEdge(width: Int, height: Int, edge: Int) -> ImageFrame {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<edge {
                let offset = (y * width + x) * 4
                pixels[offset] = 0
                pixels[offset + 1] = 0
                pixels[offset + 2] = 0
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels)
    }

    /// A straightforward blur, each box as an explicit window sum with clamped indices and a real
    /// division, horizontal passes first, then vertical ones.
    func referenceBlur(_ frame: ImageFrame, box: Int, passes: Int) -> [Int] {
        let (w, h, r) = (frame.width, frame.height, (box - 1) / 2)
        var values = frame.pixels.map(Int.init)
        func pass(horizontal: Bool) {
            var next = values
            for y in 0..<h {
                for x in 0..<w {
                    for c in 0..<4 {
                        var sum = 0
                        for k in -r...r {
                            let xx = horizontal ? min(max(x + k, 0), w - 1) : x
                            let yy = horizontal ? y : min(max(y + k, 0), h - 1)
                            sum += values[(yy * w + xx) * 4 + c]
                        }
                        next[(y * w + x) * 4 + c] = (sum + box / 2) / box
                    }
                }
            }
            values = next
        }
        for _ in 0..<passes { pass(horizontal: true) }
        for _ in 0..<passes { pass(horizontal: false) }
        return values
    }

    @Test func radiusMapsToBoxesAsKingfisherDoes() throws {
        #expect(BoxBlur.plan(radius: 10) == BoxBlur.Plan(boxSize: 19, passes: 3))
        #expect(BoxBlur.plan(radius: 3) == BoxBlur.Plan(boxSize: 7, passes: 3))
        #expect(BoxBlur.plan(radius: 2) == BoxBlur.Plan(boxSize: 5, passes: 3))
        #expect(BoxBlur.plan(radius: 1) == BoxBlur.Plan(boxSize: 5, passes: 2))
        #expect(BoxBlur.plan(radius: 0.3) == BoxBlur.Plan(boxSize: 5, passes: 1))
        #expect(BoxBlur.plan(radius: 0) == nil && BoxBlur.plan(radius: -4) == nil && BoxBlur.plan(radius: .nan) == nil)
        #expect(BoxBlur.plan(radius: .infinity)?.boxSize == BoxBlur.maxBoxSize)
        for radius in stride(from: 5.0, through: 300, by: 7.3) {
            let box = try #require(BoxBlur.plan(radius: radius)).boxSize
            #expect(box % 2 == 1)
            // Three boxes of width d have the variance 3·(d² − 1)/12: a Gaussian a little under `radius`.
            let sigma = (Double(box * box - 1) / 4).squareRoot()
            #expect(sigma <= radius * 1.05 && sigma >= radius * 0.85, "radius \(radius): σ \(sigma)")
        }
    }

    @Test(arguments: [0.3, 1, 2, 5, 10, 40, 500])
    func constantImagesStayConstant(radius: CGFloat) throws {
        for color in [RGBA8(r: 200, g: 100, b: 7, a: 255), RGBA8(r: 60, g: 40, b: 20, a: 100), RGBA8(r: 0, g: 0, b: 0, a: 0)] {
            let image = TestImages.solid(width: 17, height: 9, color)
            let blurred = image.kf.blurred(withRadius: radius)
            #expect(blurred.firstFrame.pixels == image.firstFrame.pixels, "radius \(radius), \(color)")
            #expect(blurred.isOpaque == image.isOpaque)
        }
    }

    @Test func zeroNegativeAndNaNRadiiLeaveTheImageAlone() {
        let image = TestImages.gradient(width: 12, height: 8, alpha: true)
        for radius: CGFloat in [0, -3, .nan] {
            #expect(image.kf.blurred(withRadius: radius) == image)
        }
    }

    @Test(arguments: [0.3, 1, 4, 12, 60])
    func matchesAStraightforwardBlur(radius: CGFloat) throws {
        let frame = TestImages.gradientFrame(width: 23, height: 11, alpha: true, seed: 3)
        let plan = try #require(BoxBlur.plan(radius: radius))
        let expected = referenceBlur(frame, box: plan.boxSize, passes: plan.passes)
        let actual = BoxBlur.blurred(frame, plan: plan).pixels
        let worst = zip(expected, actual).map { abs($0 - Int($1)) }.max() ?? 0
        #expect(worst <= 1, "radius \(radius): worst difference \(worst)")
    }

    @Test func stepEdgeIsMonotonicSymmetricAndSpreadsWithTheRadius() throws {
        let (width, edge) = (160, 80)
        let image = KFCrossPlatformImage(frame: stepEdge(width: width, height: 5, edge: edge))
        var spreads: [Int] = []
        for radius: CGFloat in [2, 5, 10] {
            let frame = image.kf.blurred(withRadius: radius).firstFrame
            for y in 0..<frame.height {
                let row = (0..<width).map { Int(frame.pixels[(y * width + $0) * 4]) }
                #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 }, "row \(y) not monotonic")
                for k in 1...edge {
                    #expect(abs(row[edge - k] - (255 - row[edge + k - 1])) <= 1, "k \(k)")
                }
                #expect(row[0] == 0 && row[width - 1] == 255)
            }
            let middle = (0..<width).filter { frame.pixel(x: $0, y: 2).map { $0.r > 0 && $0.r < 255 } ?? false }
            spreads.append(middle.count)
        }
        #expect(spreads[0] < spreads[1] && spreads[1] < spreads[2], "\(spreads)")
    }

    @Test func keepsPremultipliedColourWithinAlpha() {
        let image = TestImages.gradient(width: 64, height: 40, alpha: true)
        for radius: CGFloat in [1, 3, 9, 100] {
            let pixels = image.kf.blurred(withRadius: radius).firstFrame.pixels
            for offset in stride(from: 0, to: pixels.count, by: 4) {
                let alpha = pixels[offset + 3]
                #expect(pixels[offset] <= alpha && pixels[offset + 1] <= alpha && pixels[offset + 2] <= alpha)
            }
        }
    }

    @Test func tinyImagesAndHugeRadiiWork() throws {
        let single = TestImages.solid(width: 1, height: 1, RGBA8(r: 10, g: 20, b: 30, a: 40))
        #expect(single.kf.blurred(withRadius: 50_000) == single)
        let column = KFCrossPlatformImage(frame: TestImages.gradientFrame(width: 1, height: 30))
        let blurred = column.kf.blurred(withRadius: 4)
        #expect(blurred.pixelWidth == 1 && blurred.pixelHeight == 30)
    }

    @Test func processorScalesTheRadiusAndNamesIt() throws {
        let processor = BlurImageProcessor(blurRadius: 5)
        #expect(processor.identifier == "com.onevcat.Kingfisher.BlurImageProcessor(5.0)")
        #expect(BlurImageProcessor(blurRadius: 5.5).identifier != processor.identifier)
        let image = TestImages.gradient(width: 40, height: 30)
        let options = KingfisherParsedOptionsInfo([.scaleFactor(2)])
        let processed = try #require(processor.process(item: .image(image), options: options))
        #expect(processed.scale == 2)
        #expect(processed.firstFrame == image.withScale(2).kf.blurred(withRadius: 10).firstFrame)
        #expect(processed.firstFrame != image.kf.blurred(withRadius: 5).firstFrame)
        let data = try image.encoded(as: .PNG)
        let fromData = try #require(processor.process(item: .data(data), options: options))
        #expect(fromData.firstFrame == processed.firstFrame)
        #expect(processor.process(item: .data(Data("nope".utf8)), options: options) == nil)
    }

    @Test func animationsKeepFramesAndTiming() throws {
        let frames = [TestImages.gradientFrame(width: 20, height: 10).withDuration(0.1),
                      TestImages.gradientFrame(width: 20, height: 10, seed: 2).withDuration(0.25)]
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 3))
        let blurred = animation.kf.blurred(withRadius: 3)
        #expect(blurred.frames.count == 2 && blurred.loopCount == 3)
        #expect(blurred.frames.map(\.duration) == [0.1, 0.25])
        let expectedSecond = KFCrossPlatformImage(frame: frames[1]).kf.blurred(withRadius: 3).firstFrame
        #expect(blurred.frames[1].pixels == expectedSecond.pixels)
    }
}
