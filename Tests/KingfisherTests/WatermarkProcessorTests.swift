import Foundation
import Testing
@testable import Kingfisher

/// `WatermarkImageProcessor`: where the copies land, how opacity and scale act on the pixels, the
/// identifier, and the processor spec's `watermark` step.
@Suite struct WatermarkProcessorTests {
    static let red = RGBA8(r: 255, g: 0, b: 0, a: 255)
    static let blue = RGBA8(r: 0, g: 0, b: 255, a: 255)
    let options = KingfisherParsedOptionsInfo(nil)

    /// The columns (or rows) where `image`'s first frame is red along row (or column) `line`.
    static func redRuns(_ image: KFCrossPlatformImage, row: Int) -> [Int] {
        (0..<image.pixelWidth).filter { image.firstFrame.pixel(x: $0, y: row) == red }
    }

    static func redRows(_ image: KFCrossPlatformImage, column: Int) -> [Int] {
        (0..<image.pixelHeight).filter { image.firstFrame.pixel(x: column, y: $0) == red }
    }

    @Test func anchoredCopiesLandWhereTheAxesSay() {
        let base = TestImages.solid(width: 10, height: 8, Self.blue)
        let mark = TestImages.solid(width: 4, height: 3, Self.red)
        let start = base.kf.watermarked(with: mark, x: .start(.pixels(2)), y: .start(.pixels(1)))
        #expect(Self.redRuns(start, row: 1) == [2, 3, 4, 5])
        #expect(Self.redRows(start, column: 2) == [1, 2, 3])
        #expect(start.firstFrame.pixel(x: 1, y: 1) == Self.blue && start.firstFrame.pixel(x: 2, y: 0) == Self.blue)
        let end = base.kf.watermarked(with: mark, x: .end(.pixels(1)), y: .end(.pixels(0)))
        #expect(Self.redRuns(end, row: 7) == [5, 6, 7, 8])
        #expect(Self.redRows(end, column: 5) == [5, 6, 7])
        // (10 − 4) / 2 = 3 across, (8 − 3) / 2 = 2 down, then moved by the offset.
        let centred = base.kf.watermarked(with: mark, x: .center(.pixels(0)), y: .center(.pixels(1)))
        #expect(Self.redRuns(centred, row: 3) == [3, 4, 5, 6])
        #expect(Self.redRows(centred, column: 3) == [3, 4, 5])
        // A fraction of the side: 0.2 of 10 is 2.
        let fraction = base.kf.watermarked(with: mark, x: .start(.fraction(0.2)), y: .start(.pixels(0)))
        #expect(Self.redRuns(fraction, row: 0) == [2, 3, 4, 5])
        // Past the edge: clipped, nothing else touched.
        let clipped = base.kf.watermarked(with: mark, x: .start(.pixels(-2)), y: .end(.pixels(-1)))
        #expect(Self.redRuns(clipped, row: 7) == [0, 1])
        #expect(Self.redRows(clipped, column: 0) == [6, 7])
        #expect(base.kf.watermarked(with: mark, x: .start(.pixels(10)), y: .start(.pixels(0))) == base)
    }

    @Test func opacityScalesTheWatermarksAlpha() throws {
        let base = TestImages.solid(width: 6, height: 6, Self.blue)
        let mark = TestImages.solid(width: 2, height: 2, Self.red)
        let half = base.kf.watermarked(with: mark, opacity: 0.5, x: .start(.pixels(0)), y: .start(.pixels(0)))
        // Weight 128 of 255: red 255·128/255 = 128 over blue 255·127/255 = 127.
        #expect(half.firstFrame.pixel(x: 1, y: 1) == RGBA8(r: 128, g: 0, b: 127, a: 255))
        #expect(half.firstFrame.pixel(x: 2, y: 2) == Self.blue)
        #expect(half.isOpaque)
        #expect(base.kf.watermarked(with: mark, opacity: 0, x: .start(.pixels(0)), y: .start(.pixels(0))) == base)
        // A watermark's own transparency: clear pixels leave the image alone, half-alpha ones blend.
        var pixels = mark.firstFrame.pixels
        pixels[0..<4] = [0, 0, 0, 0]
        pixels[4..<8] = [128, 0, 0, 128]
        let holed = KFCrossPlatformImage(frame: ImageFrame(unchecked: 2, height: 2, pixels: pixels))
        let drawn = base.kf.watermarked(with: holed, x: .start(.pixels(0)), y: .start(.pixels(0)))
        #expect(drawn.firstFrame.pixel(x: 0, y: 0) == Self.blue)
        #expect(drawn.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 128, g: 0, b: 127, a: 255))
        #expect(drawn.firstFrame.pixel(x: 0, y: 1) == Self.red)
    }

    @Test func spreadSharesOutTheSpaceLeftOver() {
        let base = TestImages.solid(width: 10, height: 8, Self.blue)
        let mark = TestImages.solid(width: 4, height: 4, Self.red)
        // 10 = 2·4 + 2: copies at 0 and 6; 8 = 2·4: copies at 0 and 4.
        let spread = base.kf.watermarked(with: mark, x: .spread, y: .spread)
        #expect(Self.redRuns(spread, row: 0) == [0, 1, 2, 3, 6, 7, 8, 9])
        #expect(Self.redRows(spread, column: 0) == [0, 1, 2, 3, 4, 5, 6, 7])
        // Fewer than two fit: as many as cover the side, 10 pixels apart.
        let wide = TestImages.solid(width: 7, height: 1, Self.red)
        let few = base.kf.watermarked(with: wide, x: .spread, y: .start(.pixels(0)))
        #expect(Self.redRuns(few, row: 0) == [0, 1, 2, 3, 4, 5, 6])
        // More than 100 copies over both axes: at most 6 each.
        let dot = TestImages.solid(width: 1, height: 1, Self.red)
        let canvas = TestImages.solid(width: 20, height: 20, Self.blue)
        let capped = canvas.kf.watermarked(with: dot, x: .spread, y: .spread)
        #expect(Self.redRuns(capped, row: 0) == [0, 3, 6, 9, 12, 15])
        #expect(Self.redRows(capped, column: 0) == [0, 3, 6, 9, 12, 15])
        // One axis alone is not capped.
        #expect(Self.redRuns(canvas.kf.watermarked(with: dot, x: .spread, y: .start(.pixels(0))), row: 0) == Array(0..<20))
    }

    @Test func tilesAreCentredWithTheirGaps() {
        let base = TestImages.solid(width: 10, height: 4, Self.blue)
        let mark = TestImages.solid(width: 4, height: 4, Self.red)
        // Cells of 4 + 2; 3 across (an odd count), 18 wide, shifted 4: copies at −3, 3, 9.
        let tiled = base.kf.watermarked(with: mark, x: .tiled(gap: .pixels(2)), y: .start(.pixels(0)))
        #expect(Self.redRuns(tiled, row: 0) == [0, 3, 4, 5, 6, 9])
    }

    @Test func scaleFitsTheWatermarkInAShareOfTheImage() {
        let base = TestImages.solid(width: 100, height: 50, Self.blue)
        let mark = TestImages.solid(width: 4, height: 2, Self.red)
        let half = base.kf.watermarked(with: mark, x: .start(.pixels(0)), y: .start(.pixels(0)),
                                       scale: WatermarkScale(width: 0.5))
        #expect(Self.redRuns(half, row: 0).count == 50)
        #expect(Self.redRows(half, column: 0).count == 25)
        let box = WatermarkScale(width: 0.1, height: 0.1)
        #expect(box.size(markWidth: 4, markHeight: 2, imageWidth: 100, imageHeight: 50) == (10, 5))
        #expect(WatermarkScale(height: 0.2).size(markWidth: 4, markHeight: 2, imageWidth: 100, imageHeight: 50) == (20, 10))
        #expect(WatermarkScale(width: 0.3, height: 0.04).size(markWidth: 4, markHeight: 2, imageWidth: 100, imageHeight: 50) == (4, 2))
        #expect(WatermarkScale.original.size(markWidth: 4, markHeight: 2, imageWidth: 100, imageHeight: 50) == (4, 2))
        #expect(WatermarkScale(width: -1, height: .nan) == .original)
    }

    @Test func everyFrameOfAnAnimationIsWatermarked() throws {
        let frames = (0..<3).map { _ in TestImages.solid(width: 6, height: 6, Self.blue).firstFrame.withDuration(0.1) }
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 2))
        let mark = TestImages.solid(width: 2, height: 2, Self.red)
        let result = try #require(WatermarkImageProcessor(watermark: mark, x: .start(.pixels(1)), y: .start(.pixels(1)))
            .process(item: .image(animation), options: options))
        #expect(result.frames.count == 3 && result.loopCount == 2)
        for frame in result.frames {
            #expect(frame.pixel(x: 1, y: 1) == Self.red && frame.pixel(x: 0, y: 0) == Self.blue && frame.duration == 0.1)
        }
    }

    @Test func identifierNamesTheWatermarkAndEverySetting() {
        let mark = TestImages.solid(width: 2, height: 2, Self.red)
        let other = TestImages.solid(width: 2, height: 2, Self.blue)
        let processor = WatermarkImageProcessor(watermark: mark, opacity: 0.5, x: .end(.pixels(10)), y: .spread,
                                                scale: WatermarkScale(width: 0.25))
        #expect(processor.identifier.hasPrefix("com.onevcat.Kingfisher.WatermarkImageProcessor("))
        #expect(processor.identifier.hasSuffix("_0.5_end(10)_spread_fit(0.25,-))"))
        #expect(processor.identifier == WatermarkImageProcessor(watermark: mark, opacity: 0.5, x: .end(.pixels(10)), y: .spread,
                                                                scale: WatermarkScale(width: 0.25)).identifier)
        let others = [
            WatermarkImageProcessor(watermark: other, opacity: 0.5, x: .end(.pixels(10)), y: .spread, scale: WatermarkScale(width: 0.25)),
            WatermarkImageProcessor(watermark: mark, opacity: 0.6, x: .end(.pixels(10)), y: .spread, scale: WatermarkScale(width: 0.25)),
            WatermarkImageProcessor(watermark: mark, opacity: 0.5, x: .start(.pixels(10)), y: .spread, scale: WatermarkScale(width: 0.25)),
            WatermarkImageProcessor(watermark: mark, opacity: 0.5, x: .end(.pixels(10)), y: .tiled(gap: .pixels(0)), scale: WatermarkScale(width: 0.25)),
            WatermarkImageProcessor(watermark: mark, opacity: 0.5, x: .end(.pixels(10)), y: .spread),
        ]
        #expect(Set(others.map(\.identifier) + [processor.identifier]).count == 6)
        #expect(WatermarkImageProcessor(watermark: mark, opacity: 7).opacity == 1)
    }

    @Test func processorSpecReadsTheWatermarkFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-watermark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("mark.png")
        try #require(TestImages.solid(width: 2, height: 2, Self.red).kf.pngRepresentation()).write(to: file)
        let base = TestImages.solid(width: 8, height: 8, Self.blue)

        let corner = try ProcessorSpec(parsing: "watermark(\(file.path),1)").processor()
        let drawn = try #require(corner.process(item: .image(base), options: options))
        #expect(drawn.firstFrame.pixel(x: 7, y: 7) == Self.red && drawn.firstFrame.pixel(x: 5, y: 5) == Self.blue)

        let placed = try ProcessorSpec(parsing: "watermark(\(file.path),1,northWest:1:2,0.5)").processor()
        let scaled = try #require(placed.process(item: .image(base), options: options))
        #expect(Self.redRuns(scaled, row: 2) == [1, 2, 3, 4])
        let repeated = try #require(try ProcessorSpec(parsing: "watermark(\(file.path),1,repeat)").processor()
            .process(item: .image(base), options: options))
        #expect(Self.redRuns(repeated, row: 0) == [0, 1, 2, 3, 4, 5, 6, 7])

        for (spec, reason) in [
            ("watermark(\(file.path),1)", "not allowed"),
            ("watermark(\(folder.path)/missing.png,1)", "cannot be read"),
            ("watermark(\(folder.path),1)", "cannot be read"),
            ("watermark(/dev/zero,1)", "cannot be read"),
            ("watermark(\(file.path),2)", "between 0 and 1"),
            ("watermark(\(file.path),1,up)", "gravity"),
            ("watermark(\(file.path),1,center,0)", "positive"),
            ("watermark(\(file.path))", "takes 2 to 4 arguments"),
        ] {
            do {
                _ = try ProcessorSpec(parsing: spec).processor(readsFiles: !reason.hasPrefix("not"))
                Issue.record("\(spec) was accepted")
            } catch let error as ProcessorSpecError {
                #expect(error.reason.contains(reason), "\(spec): \(error.reason)")
            }
        }
        let notAnImage = folder.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notAnImage)
        #expect(throws: ProcessorSpecError.self) { try ProcessorSpec(parsing: "watermark(\(notAnImage.path),1)").processor() }
    }

    @Test func extendingWithoutBlendingKeepsTransparentPixels() {
        var pixels = [UInt8](repeating: 0, count: 2 * 1 * 4)
        pixels[4..<8] = [255, 0, 0, 255]
        let image = KFCrossPlatformImage(frame: ImageFrame(unchecked: 2, height: 1, pixels: pixels))
        let white = KFCrossPlatformColor(red: 1, green: 1, blue: 1, alpha: 1)
        let blended = image.extended(toPixelWidth: 4, height: 1, x: 1, y: 0, background: white)
        #expect(blended.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 255, g: 255, b: 255, a: 255) && blended.isOpaque)
        let kept = image.extended(toPixelWidth: 4, height: 1, x: 1, y: 0, background: white, blendsOntoBackground: false)
        #expect(kept.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0) && !kept.isOpaque)
        #expect(kept.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 255, g: 255, b: 255, a: 255))
        #expect(kept.firstFrame.pixel(x: 2, y: 0) == Self.red)
        let canvas = TestImages.solid(width: 4, height: 1, Self.blue)
        let placed = image.placed(on: canvas, x: 1, y: 0, blends: false)
        #expect(placed.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(placed.firstFrame.pixel(x: 0, y: 0) == Self.blue && placed.firstFrame.pixel(x: 2, y: 0) == Self.red)
        let over = image.placed(on: canvas, x: 1, y: 0)
        #expect(over.firstFrame.pixel(x: 1, y: 0) == Self.blue && over.isOpaque)
    }
}
