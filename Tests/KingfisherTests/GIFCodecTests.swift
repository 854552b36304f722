import Foundation
import Testing
@testable import Kingfisher

/// Colours shared by the hand-made files: index 0 red, 1 green, 2 blue, 3 white.
private let red = RGBA8(r: 255, g: 0, b: 0, a: 255)
private let green = RGBA8(r: 0, g: 255, b: 0, a: 255)
private let blue = RGBA8(r: 0, g: 0, b: 255, a: 255)
private let white = RGBA8(r: 255, g: 255, b: 255, a: 255)
private let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)
private let basicPalette = [
    GIFWriter.Color(r: 255, g: 0, b: 0), GIFWriter.Color(r: 0, g: 255, b: 0),
    GIFWriter.Color(r: 0, g: 0, b: 255), GIFWriter.Color(r: 255, g: 255, b: 255),
]

/// Every pixel of `frame`, row by row, for exact comparisons with readable failures.
private func rows(_ frame: ImageFrame) -> [[RGBA8]] {
    (0..<frame.height).map { y in (0..<frame.width).map { x in frame.pixel(x: x, y: y) ?? clear } }
}

/// A `width`×`height` grid of `fill` with the pixels listed in `overrides` changed.
private func grid(_ width: Int, _ height: Int, _ fill: RGBA8, _ overrides: [(x: Int, y: Int, color: RGBA8)] = []) -> [[RGBA8]] {
    var result = [[RGBA8]](repeating: [RGBA8](repeating: fill, count: width), count: height)
    for override in overrides { result[override.y][override.x] = override.color }
    return result
}

/// A frame of premultiplied pixels drawn by `color(x, y)`.
private func makeFrame(_ width: Int, _ height: Int, duration: TimeInterval = 0, _ color: (Int, Int) -> RGBA8) -> ImageFrame {
    var pixels: [UInt8] = []
    for y in 0..<height {
        for x in 0..<width {
            let c = color(x, y)
            pixels += [c.r, c.g, c.b, c.a]
        }
    }
    return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: duration)
}

/// Four solid blocks whose colours depend on `seed`, with a transparent band across the middle.
private func blocksFrame(seed: Int, duration: TimeInterval) -> ImageFrame {
    let colors = [red, green, blue, white, RGBA8(r: 10, g: 20, b: 30, a: 255)]
    return makeFrame(16, 12, duration: duration) { x, y in
        if y == 5 || y == 6 { return clear }
        return colors[(seed + (x < 8 ? 0 : 1) + (y < 6 ? 0 : 2)) % colors.count]
    }
}

/// A 3-frame 8×8 animation from the test writer, looping forever, with transparency.
private func handMadeAnimation() -> Data {
    var writer = GIFWriter(width: 8, height: 8, globalPalette: basicPalette, loopCount: 0)
    writer.frames = [
        .filled(0, width: 8, height: 8, control: .init(disposal: 1, delay: 10)),
        .filled(1, left: 2, top: 2, width: 4, height: 4, control: .init(disposal: 2, delay: 20, transparentIndex: 3)),
        GIFWriter.Frame(left: 1, top: 1, width: 6, height: 6, indices: (0..<36).map { UInt8($0 % 4) },
                        interlaced: true, control: .init(disposal: 3, delay: 5, transparentIndex: 0)),
    ]
    return writer.data()
}

/// The limit violation in `error`, if it is an image limit error.
private func violation(_ error: any Error) -> ImageLimitViolation? {
    if case let KingfisherError.processorError(reason: .imageLimitExceeded(format: .GIF, violation: violation)) = error {
        return violation
    }
    return nil
}

/// The description of a GIF decoding failure in `error`.
private func decodingDescription(_ error: any Error) -> String? {
    if case let KingfisherError.processorError(reason: .decodingFailed(format: .GIF, description: description)) = error {
        return description
    }
    return nil
}

@Suite("GIF codec") struct GIFCodecTests {
    // MARK: Round trips

    @Test func fewColorsRoundTripExactly() throws {
        let frames = [blocksFrame(seed: 0, duration: 0.1), blocksFrame(seed: 1, duration: 0.2), blocksFrame(seed: 2, duration: 0.5)]
        let image = try #require(KFCrossPlatformImage(frames: frames, loopCount: 3))
        let data = try #require(image.kf.gifRepresentation())
        #expect(data.kf.imageFormat == .GIF)
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(decoded.frames.count == 3)
        #expect(decoded.frames.map(\.duration) == [0.1, 0.2, 0.5])
        #expect(decoded.loopCount == 3)
        #expect(decoded.isOpaque == false)
        for (original, copy) in zip(frames, decoded.frames) {
            #expect(copy.pixels == original.pixels)
        }
        let header = try ImageHeader(data: data)
        #expect(header.format == .GIF)
        #expect(header.pixelWidth == 16 && header.pixelHeight == 12)
        #expect(header.frameCount == 3)
        #expect(header.loopCount == 3)
        #expect(header.hasAlpha)
    }

    @Test func gradientRoundTripsWithinSmallError() throws {
        let frame = TestImages.gradientFrame(width: 96, height: 64)
        let image = KFCrossPlatformImage(frame: frame)
        let decoded = try KFCrossPlatformImage(data: try image.encoded(as: .GIF))
        #expect(!decoded.isAnimated)
        #expect(decoded.isOpaque)
        let mean = TestImages.meanDifference(frame, decoded.firstFrame)
        #expect(mean < 3, "mean absolute difference \(mean)")
        #expect(TestImages.maxDifference(frame, decoded.firstFrame) < 16)
    }

    @Test func manyColorsWithTransparencyKeepTransparentPixels() throws {
        // More than 256 colours and a transparent column: median cut to 255 plus the transparent index.
        let gradient = TestImages.gradientFrame(width: 40, height: 40, seed: 3)
        let frame = makeFrame(40, 40) { x, y in
            x == 0 ? clear : gradient.pixel(x: x, y: y) ?? clear
        }
        let decoded = try KFCrossPlatformImage(data: try KFCrossPlatformImage(frame: frame).encoded(as: .GIF))
        #expect(!decoded.isOpaque)
        for y in 0..<40 {
            #expect(decoded.firstFrame.pixel(x: 0, y: y) == clear)
            #expect(decoded.firstFrame.pixel(x: 1, y: y)?.a == 255)
        }
        #expect(TestImages.meanDifference(frame, decoded.firstFrame) < 3)
    }

    @Test func partialAlphaIsThresholdedAndUnpremultiplied() throws {
        let frame = makeFrame(2, 1) { x, _ in
            x == 0 ? RGBA8(r: 40, g: 40, b: 40, a: 100) : RGBA8(r: 100, g: 50, b: 0, a: 200)
        }
        let decoded = try KFCrossPlatformImage(data: try KFCrossPlatformImage(frame: frame).encoded(as: .GIF))
        #expect(decoded.firstFrame.pixel(x: 0, y: 0) == clear)
        #expect(decoded.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 128, g: 64, b: 0, a: 255))
    }

    @Test func encoderWritesDelaysAndLoopCountAsStored() throws {
        #expect(GIFEncoder.delayCentiseconds(0) == 2)
        #expect(GIFEncoder.delayCentiseconds(0.014) == 2)
        #expect(GIFEncoder.delayCentiseconds(0.125) == 13)
        #expect(GIFEncoder.delayCentiseconds(1000) == 65535)
        let frames = (0..<2).map { makeFrame(4, 4, duration: 0.013 * Double($0 + 1)) { _, _ in white } }
        let image = try #require(KFCrossPlatformImage(frames: frames, loopCount: 0))
        let data = try image.encoded(as: .GIF)
        #expect(try ImageHeader(data: data).hasAlpha == false)
        let decoded = try KFCrossPlatformImage(data: data)
        // 0.013 s → 1 cs, written as the minimum of 2 cs; 0.026 s → 3 cs.
        #expect(decoded.frames.map(\.duration) == [0.02, 0.03])
        #expect(decoded.loopCount == 0)
        #expect(decoded.isOpaque)
    }

    @Test func stillImageEncodesAsStill() throws {
        let data = try TestImages.solid(width: 5, height: 3, blue).encoded(as: .GIF)
        let header = try ImageHeader(data: data)
        #expect(header.frameCount == 1 && header.loopCount == 0 && !header.hasAlpha)
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(!decoded.isAnimated && decoded.duration == 0 && decoded.firstFrame.duration == 0)
        #expect(rows(decoded.firstFrame) == grid(5, 3, blue))
    }

    // MARK: Compositing

    /// Frame 1 fills the 4×4 screen red; frame 2 puts a green 2×2 square at (1,1) and is disposed of
    /// with `disposal`; frame 3 puts one blue pixel at (0,0).
    private func disposalFrames(_ disposal: Int) throws -> [ImageFrame] {
        var writer = GIFWriter(width: 4, height: 4, globalPalette: basicPalette, loopCount: 0)
        writer.frames = [
            .filled(0, width: 4, height: 4, control: .init(disposal: 1)),
            .filled(1, left: 1, top: 1, width: 2, height: 2, control: .init(disposal: disposal)),
            .filled(2, width: 1, height: 1, control: .init(disposal: 1)),
        ]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(image.frames.count == 3)
        return image.frames
    }

    @Test(arguments: [0, 1, 4, 7])
    func leaveInPlaceDisposalKeepsTheFrame(disposal: Int) throws {
        let frames = try disposalFrames(disposal)
        let square: [(x: Int, y: Int, color: RGBA8)] = [(1, 1, green), (2, 1, green), (1, 2, green), (2, 2, green)]
        #expect(rows(frames[0]) == grid(4, 4, red))
        #expect(rows(frames[1]) == grid(4, 4, red, square))
        #expect(rows(frames[2]) == grid(4, 4, red, square + [(0, 0, blue)]))
    }

    @Test func restoreToBackgroundClearsTheRectangleToTransparent() throws {
        let frames = try disposalFrames(2)
        let hole: [(x: Int, y: Int, color: RGBA8)] = [(1, 1, clear), (2, 1, clear), (1, 2, clear), (2, 2, clear)]
        #expect(rows(frames[1]) == grid(4, 4, red, [(1, 1, green), (2, 1, green), (1, 2, green), (2, 2, green)]))
        #expect(rows(frames[2]) == grid(4, 4, red, hole + [(0, 0, blue)]))
    }

    @Test func restoreToPreviousRestoresTheScreenBeforeTheFrame() throws {
        let frames = try disposalFrames(3)
        #expect(rows(frames[2]) == grid(4, 4, red, [(0, 0, blue)]))

        // On the first frame, "previous" is the empty, transparent screen.
        var writer = GIFWriter(width: 4, height: 4, globalPalette: basicPalette)
        writer.frames = [
            .filled(0, width: 2, height: 2, control: .init(disposal: 3)),
            .filled(2, left: 3, top: 3, width: 1, height: 1, control: .init(disposal: 3)),
            .filled(3, left: 3, top: 0, width: 1, height: 1),
        ]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(rows(image.frames[0]) == grid(4, 4, clear, [(0, 0, red), (1, 0, red), (0, 1, red), (1, 1, red)]))
        #expect(rows(image.frames[1]) == grid(4, 4, clear, [(3, 3, blue)]))
        #expect(rows(image.frames[2]) == grid(4, 4, clear, [(3, 0, white)]))
        #expect(!image.isOpaque)
    }

    @Test func transparentIndexShowsWhatIsBeneath() throws {
        var writer = GIFWriter(width: 3, height: 1, globalPalette: basicPalette)
        writer.frames = [
            .filled(0, width: 3, height: 1, control: .init(disposal: 1)),
            GIFWriter.Frame(width: 3, height: 1, indices: [2, 3, 1], control: .init(disposal: 1, transparentIndex: 3)),
        ]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(rows(image.frames[1]) == [[blue, red, green]])
        #expect(image.isOpaque)
    }

    @Test func framesOutsideTheScreenAreClipped() throws {
        var writer = GIFWriter(width: 4, height: 4, globalPalette: basicPalette)
        writer.frames = [
            .filled(0, width: 4, height: 4, control: .init(disposal: 1)),
            // Overhangs the bottom-right corner, then is cleared (only its visible part).
            .filled(1, left: 2, top: 3, width: 5, height: 3, control: .init(disposal: 2)),
            // Entirely outside.
            .filled(2, left: 9, top: 9, width: 3, height: 3, control: .init(disposal: 2)),
        ]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(rows(image.frames[1]) == grid(4, 4, red, [(2, 3, green), (3, 3, green)]))
        #expect(rows(image.frames[2]) == grid(4, 4, red, [(2, 3, clear), (3, 3, clear)]))
    }

    @Test(arguments: [1, 2, 3, 4, 5, 8, 9, 13, 16])
    func interlacedRowsLandOnTheirRows(height: Int) throws {
        let palette = (0..<16).map { GIFWriter.Color(r: UInt8($0 * 16), g: UInt8(255 - $0 * 16), b: 7) }
        var writer = GIFWriter(width: 3, height: height + 1, globalPalette: palette)
        writer.frames = [
            GIFWriter.Frame(top: 1, width: 3, height: height, indices: (0..<height).flatMap { [UInt8](repeating: UInt8($0 % 16), count: 3) }, interlaced: true),
        ]
        let frame = try KFCrossPlatformImage(data: writer.data()).firstFrame
        #expect(frame.pixel(x: 0, y: 0) == clear)
        for y in 0..<height {
            let color = palette[y % 16]
            #expect(frame.pixel(x: 2, y: y + 1) == RGBA8(r: color.r, g: color.g, b: color.b, a: 255), "row \(y)")
        }
        #expect(GIFDecoder.interlacedRowOrder(height: 10) == [0, 8, 4, 2, 6, 1, 3, 5, 7, 9])
    }

    @Test(arguments: [2, 16, 256])
    func largeFramesFillTheLZWTable(colors: Int) throws {
        // Noise and long runs, so the code table fills, widens to 12 bits and is cleared many times.
        var generator = Mutations.SeededGenerator(state: UInt64(colors))
        let width = 150, height = 120
        let indices = (0..<(width * height)).map { index -> UInt8 in
            index % 3000 < 1000 ? UInt8(index / 3000 % colors) : UInt8.random(in: 0...UInt8(colors - 1), using: &generator)
        }
        let palette = (0..<colors).map { GIFWriter.Color(r: UInt8($0), g: UInt8(255 - $0), b: UInt8($0 / 2)) }
        var writer = GIFWriter(width: width, height: height, globalPalette: palette)
        writer.frames = [GIFWriter.Frame(width: width, height: height, indices: indices)]
        let frame = try KFCrossPlatformImage(data: writer.data()).firstFrame
        let expected: [UInt8] = indices.flatMap { index -> [UInt8] in
            let color = palette[Int(index)]
            return [color.r, color.g, color.b, 255]
        }
        #expect(frame.pixels == expected)
    }

    @Test func localColorTableWinsOverTheGlobalOne() throws {
        var writer = GIFWriter(width: 2, height: 1, globalPalette: basicPalette)
        var frame = GIFWriter.Frame(width: 2, height: 1, indices: [0, 1])
        frame.localPalette = [GIFWriter.Color(r: 1, g: 2, b: 3), GIFWriter.Color(r: 4, g: 5, b: 6)]
        writer.frames = [frame]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(rows(image.firstFrame) == [[RGBA8(r: 1, g: 2, b: 3, a: 255), RGBA8(r: 4, g: 5, b: 6, a: 255)]])
    }

    // MARK: Delays and loop counts

    @Test func delaysFollowKingfishersRule() throws {
        var writer = GIFWriter(width: 2, height: 2, globalPalette: basicPalette)
        writer.frames = [0, 1, 2, 10].map { .filled(0, width: 2, height: 2, control: .init(disposal: 1, delay: $0)) }
            + [.filled(1, width: 2, height: 2)]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.02, 0.1, 0.1])
        #expect(abs(image.duration - 0.42) < 1e-9)
    }

    @Test func loopCountComesFromTheLoopingExtension() throws {
        func loopCount(_ value: Int?, identifier: String = "NETSCAPE2.0") throws -> (decoded: Int, probed: Int) {
            var writer = GIFWriter(width: 2, height: 2, globalPalette: basicPalette, loopCount: value)
            writer.loopIdentifier = identifier
            writer.frames = [.filled(0, width: 2, height: 2), .filled(1, width: 2, height: 2)]
            let data = writer.data()
            return (try KFCrossPlatformImage(data: data).loopCount, try ImageHeader(data: data).loopCount)
        }
        #expect(try loopCount(5) == (5, 5))
        #expect(try loopCount(0) == (0, 0))
        #expect(try loopCount(65535) == (65535, 65535))
        #expect(try loopCount(7, identifier: "ANIMEXTS1.0") == (7, 7))
        #expect(try loopCount(7, identifier: "XMP DataXMP") == (1, 1))
        // No extension: plays once, as in browsers (ImageIO reports no loop count).
        #expect(try loopCount(nil) == (1, 1))
    }

    // MARK: First frame and probe

    @Test func onlyFirstFrameGivesAStillImage() throws {
        let data = handMadeAnimation()
        let full = try KFCrossPlatformImage(data: data)
        #expect(full.frames.count == 3 && full.loopCount == 0)
        let first = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(scale: 2, onlyFirstFrame: true))
        #expect(first.frames.count == 1 && !first.isAnimated)
        #expect(first.duration == 0 && first.firstFrame.duration == 0 && first.loopCount == 0)
        #expect(first.firstFrame.pixels == full.firstFrame.pixels)
        #expect(first.scale == 2 && first.size == CGSize(width: 4, height: 4))
        #expect(first.isOpaque)
    }

    @Test func singleFrameGIFIsAStillImage() throws {
        var writer = GIFWriter(width: 2, height: 2, globalPalette: basicPalette, loopCount: 0)
        writer.frames = [.filled(3, width: 2, height: 2, control: .init(delay: 50))]
        let image = try KFCrossPlatformImage(data: writer.data())
        #expect(!image.isAnimated && image.duration == 0 && image.firstFrame.duration == 0 && image.loopCount == 0)
        #expect(rows(image.firstFrame) == grid(2, 2, white))
        let header = try ImageHeader(data: writer.data())
        #expect(header.frameCount == 1 && header.loopCount == 0 && !header.hasAlpha)
    }

    @Test func probeWalksBlocksWithoutDecoding() throws {
        let header = try ImageHeader(data: handMadeAnimation())
        #expect(header.format == .GIF)
        #expect(header.pixelWidth == 8 && header.pixelHeight == 8)
        #expect(header.frameCount == 3 && header.loopCount == 0 && header.hasAlpha)
        #expect(header.orientation == .up)

        // Pixel data the decoder refuses is still counted, and a huge screen is only read.
        var writer = GIFWriter(width: 60000, height: 60000, globalPalette: basicPalette)
        writer.frames = [.filled(0, width: 1, height: 1), .filled(1, width: 1, height: 1)]
        writer.frames[1].rawImageData = [2, 1, 0x04, 0]
        let huge = try ImageHeader(data: writer.data())
        #expect(huge.pixelWidth == 60000 && huge.pixelHeight == 60000 && huge.frameCount == 2 && huge.loopCount == 1)
        // The first frame leaves most of the screen transparent.
        #expect(huge.hasAlpha)

        // Opaque frames covering the screen have no alpha, unless one is cleared to the background.
        for (disposal, hasAlpha) in [(1, false), (2, true)] {
            var opaque = GIFWriter(width: 2, height: 2, globalPalette: basicPalette)
            opaque.frames = [.filled(0, width: 2, height: 2, control: .init(disposal: disposal)), .filled(1, width: 2, height: 2)]
            #expect(try ImageHeader(data: opaque.data()).hasAlpha == hasAlpha)
        }
    }

    // MARK: Limits

    @Test func hugeScreenIsRefusedBeforeAllocating() throws {
        var writer = GIFWriter(width: 60000, height: 60000, globalPalette: basicPalette)
        writer.frames = [.filled(0, width: 1, height: 1)]
        let error = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: writer.data()) }
        if case .processorError(reason: .imageLimitExceeded(format: .GIF, violation: .pixelsPerFrame(60000, 60000, _))) = error {
        } else {
            Issue.record("unexpected error \(String(describing: error))")
        }
    }

    @Test func hugeImageDescriptorIsRefused() throws {
        var writer = GIFWriter(width: 4, height: 4, globalPalette: basicPalette)
        writer.frames = [.filled(0, width: 1, height: 1)]
        writer.frames[0].width = 65535
        writer.frames[0].height = 65535
        let error = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: writer.data()) }
        #expect(error.flatMap(violation) == .pixelsPerFrame(width: 65535, height: 65535, limit: ImageDecodingLimits.default.maxPixelsPerFrame))
    }

    @Test func frameCountLimitRefusesTheFrameAfterTheLimit() throws {
        let data = handMadeAnimation()
        let limits = ImageDecodingLimits(maxFrameCount: 2)
        let error = #expect(throws: KingfisherError.self) {
            try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(limits: limits))
        }
        #expect(error.flatMap(violation) == .frameCount(count: 3, limit: 2))
        #expect(try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(limits: ImageDecodingLimits(maxFrameCount: 3))).frames.count == 3)
        #expect(try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(onlyFirstFrame: true, limits: limits)).frames.count == 1)
    }

    @Test func totalAnimationPixelsLimit() throws {
        var writer = GIFWriter(width: 10, height: 10, globalPalette: basicPalette)
        writer.frames = (0..<3).map { .filled(UInt8($0), width: 10, height: 10) }
        let data = writer.data()
        let error = #expect(throws: KingfisherError.self) {
            try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(limits: ImageDecodingLimits(maxTotalAnimationPixels: 250)))
        }
        #expect(error.flatMap(violation) == .totalAnimationPixels(pixels: 300, limit: 250))
        let exact = ImageCreatingOptions(limits: ImageDecodingLimits(maxTotalAnimationPixels: 300))
        #expect(try KFCrossPlatformImage(data: data, options: exact).frames.count == 3)
    }

    // MARK: Damaged data

    @Test func missingColorTableIsAnError() throws {
        var writer = GIFWriter(width: 2, height: 2)
        writer.frames = [.filled(0, width: 2, height: 2)]
        let error = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: writer.data()) }
        #expect(error.flatMap(decodingDescription)?.contains("colour table") == true)
    }

    @Test func corruptCompressedDataReportsGiflibsMessage() throws {
        // The end code after 3 of the 16 pixels.
        var writer = GIFWriter(width: 4, height: 4, globalPalette: basicPalette)
        writer.frames = [.filled(0, width: 4, height: 4)]
        writer.frames[0].rawImageData = [2] + GIFWriter.subBlocks(GIFWriter.lzw([0, 1, 2], minimumCodeSize: 2))
        let early = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: writer.data()) }
        #expect(early.flatMap(decodingDescription)?.contains("Image EOF detected before image complete") == true)

        // The data sub-blocks end after a clear code; even after a good frame this is an error.
        writer.frames.insert(.filled(1, width: 4, height: 4), at: 0)
        writer.frames[1].rawImageData = [2, 1, 0x04, 0]
        let defect = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: writer.data()) }
        let description = defect.flatMap(decodingDescription) ?? ""
        #expect(description.contains("frame 2") && description.contains("Image is defective, decoding aborted"), "\(description)")
    }

    @Test func dataWithoutAnyImageIsAnError() throws {
        let empty = GIFWriter(width: 2, height: 2, globalPalette: basicPalette).data()
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: empty) }
        #expect(throws: KingfisherError.self) { try ImageHeader(data: empty) }
        var zero = GIFWriter(width: 0, height: 3, globalPalette: basicPalette)
        zero.frames = [.filled(0, width: 1, height: 1)]
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: zero.data()) }
        #expect(throws: KingfisherError.self) { try ImageHeader(data: zero.data()) }
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: Data("GIF89a".utf8)) }
    }

    @Test func truncatedDataKeepsTheCompleteFrames() throws {
        let data = handMadeAnimation()
        var firstTwo = GIFWriter(width: 8, height: 8, globalPalette: basicPalette, loopCount: 0)
        firstTwo.frames = [
            .filled(0, width: 8, height: 8, control: .init(disposal: 1, delay: 10)),
            .filled(1, left: 2, top: 2, width: 4, height: 4, control: .init(disposal: 2, delay: 20, transparentIndex: 3)),
        ]
        firstTwo.trailer = false
        let thirdFrameStart = firstTwo.data().count
        let full = try KFCrossPlatformImage(data: data)

        // Without the trailer: every frame is complete.
        #expect(try KFCrossPlatformImage(data: data.dropLast()).frames.count == 3)
        // Inside the third frame: the first two, as decoded from the whole file.
        for cut in [thirdFrameStart, thirdFrameStart + 12, data.count - 3] {
            let image = try KFCrossPlatformImage(data: Data(data.prefix(cut)))
            #expect(image.frames == Array(full.frames.prefix(2)), "cut at \(cut)")
            #expect(image.loopCount == 0)
            #expect(try ImageHeader(data: Data(data.prefix(cut))).frameCount == 2)
        }
        // Inside the first frame: nothing complete to show.
        let error = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: Data(data.prefix(60))) }
        #expect(error.flatMap(decodingDescription)?.contains("ends before the first frame is complete") == true)
    }

    @Test func bytesAfterTheLastFrameEndTheImage() throws {
        var writer = GIFWriter(width: 2, height: 2, globalPalette: basicPalette)
        writer.frames = [.filled(0, width: 2, height: 2), .filled(1, width: 2, height: 2)]
        writer.trailer = false
        let data = writer.data() + Data([0x00, 0x99, 0x2C])
        #expect(try KFCrossPlatformImage(data: data).frames.count == 2)
        #expect(try ImageHeader(data: data).frameCount == 2)
    }

    @Test func damagedFilesNeverCrash() throws {
        let gradientFrames = (0..<3).map { TestImages.gradientFrame(width: 20, height: 14, alpha: $0 == 1, seed: $0).withDuration(0.05) }
        let encoded = try #require(KFCrossPlatformImage(frames: gradientFrames, loopCount: 2)).encoded(as: .GIF)
        let still = try TestImages.gradient(width: 12, height: 9).encoded(as: .GIF)
        for (name, data) in [("hand-made", handMadeAnimation()), ("encoded", encoded), ("still", still)] {
            let damaged = Mutations.damaged(data, count: 3000)
            let result = Mutations.decodeAll(damaged)
            #expect(result.foreignErrors == 0, "\(name)")
            #expect(result.decoded > 100, "\(name): \(result.decoded) decoded")
            let firstOnly = Mutations.decodeAll(Array(damaged.prefix(500)), options: ImageCreatingOptions(onlyFirstFrame: true))
            #expect(firstOnly.foreignErrors == 0, "\(name)")
            // The probe on every copy, including those the decoder refuses.
            var probeForeignErrors = 0
            for input in damaged {
                do {
                    let header = try ImageHeader(data: input)
                    #expect(header.frameCount >= 1 && header.pixelWidth > 0 && header.pixelHeight > 0)
                } catch is KingfisherError {
                } catch {
                    probeForeignErrors += 1
                }
            }
            #expect(probeForeignErrors == 0, "\(name)")
        }
    }
}
