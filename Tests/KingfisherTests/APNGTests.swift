import Foundation
import Testing
@testable import Kingfisher

private let red: [UInt8] = [255, 0, 0, 255]
private let green: [UInt8] = [0, 255, 0, 255]
private let blue: [UInt8] = [0, 0, 255, 255]
private let magenta: [UInt8] = [255, 0, 255, 255]
private let clear: [UInt8] = [0, 0, 0, 0]

/// The premultiplied pixel of `frame` at (`x`, `y`) as four bytes.
private func pixel(_ frame: ImageFrame, _ x: Int, _ y: Int) -> [UInt8] {
    guard let p = frame.pixel(x: x, y: y) else { return [] }
    return [p.r, p.g, p.b, p.a]
}

/// Straight RGBA premultiplied and composited by hand (the reference the decoder is held to).
private func over(_ source: [UInt8], _ destination: [UInt8]) -> [UInt8] {
    let alpha = Double(source[3]) / 255
    return (0..<4).map { channel in
        let premultiplied = channel == 3 ? Double(source[3]) : Double(source[channel]) * alpha
        return UInt8((premultiplied + Double(destination[channel]) * (1 - alpha)).rounded())
    }
}

private func close(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
}

/// Three frames on a 4×4 canvas: red everywhere, green 2×2 at (2,2) with `dispose`, blue 1×1 at (0,0).
private func disposalAnimation(dispose: UInt8) -> Data {
    APNGWriter.apng(width: 4, height: 4, frames: [
        .solid(4, 4, rgba: red),
        .solid(2, 2, x: 2, y: 2, rgba: green, dispose: dispose),
        .solid(1, 1, rgba: blue),
    ])
}

@Suite struct APNGTests {
    @Test func framesOffsetsAndHeaderOfAnAnimation() throws {
        let data = APNGWriter.apng(width: 4, height: 3, frames: [
            .solid(4, 3, rgba: red, delay: (1, 2)),
            .solid(2, 1, x: 1, y: 2, rgba: blue, delay: (3, 0)),
        ], plays: 3)
        let header = try ImageHeader(data: data)
        #expect(header.format == .PNG)
        #expect(header.frameCount == 2)
        #expect(header.loopCount == 3)
        #expect(header.frameDurations == [0.5, 0.03])
        #expect(header.pixelWidth == 4 && header.pixelHeight == 3)

        let image = try KFCrossPlatformImage(data: data)
        #expect(image.frames.count == 2)
        #expect(image.loopCount == 3)
        #expect(image.frames.map(\.duration) == [0.5, 0.03])
        let second = image.frames[1]
        #expect(second.width == 4 && second.height == 3)
        for y in 0..<3 {
            for x in 0..<4 {
                let inFrame = y == 2 && (1...2).contains(x)
                #expect(pixel(second, x, y) == (inFrame ? blue : red), "pixel \(x),\(y)")
                #expect(pixel(image.frames[0], x, y) == red)
            }
        }
    }

    @Test(arguments: [(UInt8(0), green), (UInt8(1), clear), (UInt8(2), red)])
    func disposeOps(dispose: UInt8, expected: [UInt8]) throws {
        let image = try KFCrossPlatformImage(data: disposalAnimation(dispose: dispose))
        #expect(image.frames.count == 3)
        #expect(pixel(image.frames[1], 2, 2) == green)
        #expect(pixel(image.frames[1], 1, 1) == red)
        let last = image.frames[2]
        #expect(pixel(last, 0, 0) == blue)
        for (x, y) in [(2, 2), (3, 3), (2, 3), (3, 2)] {
            #expect(pixel(last, x, y) == expected, "dispose \(dispose) at \(x),\(y)")
        }
        #expect(pixel(last, 1, 1) == red)
    }

    @Test func previousOnTheFirstFrameClearsLikeBackground() throws {
        let data = APNGWriter.apng(width: 2, height: 2, frames: [
            .solid(2, 2, rgba: red, dispose: 2),
            .solid(1, 1, rgba: blue, blend: 1),
        ])
        let image = try KFCrossPlatformImage(data: data)
        #expect(pixel(image.frames[1], 0, 0) == blue)
        #expect(pixel(image.frames[1], 1, 1) == clear)
    }

    @Test func blendOverAndSourceOnSemiTransparentPixels() throws {
        let translucent: [UInt8] = [0, 0, 255, 128]
        let lightRed: [UInt8] = [200, 40, 10, 200]
        for blend: UInt8 in [0, 1] {
            let data = APNGWriter.apng(width: 3, height: 2, frames: [
                .solid(3, 2, rgba: lightRed),
                .solid(2, 2, x: 1, rgba: translucent, blend: blend),
            ])
            let image = try KFCrossPlatformImage(data: data)
            let base = over(lightRed, clear)
            #expect(close(pixel(image.frames[0], 0, 0), base))
            let expected = blend == 0 ? over(translucent, clear) : over(translucent, base)
            #expect(close(pixel(image.frames[1], 1, 0), expected), "blend \(blend): \(pixel(image.frames[1], 1, 0)) vs \(expected)")
            #expect(close(pixel(image.frames[1], 0, 1), base))
            #expect(!image.isOpaque)
        }
    }

    @Test func durationsFollowTheGIFRuleForTinyDelays() throws {
        let delays: [(UInt16, UInt16)] = [(1, 100), (0, 0), (3, 0), (1, 2), (50, 1000), (11, 1000), (12, 1000)]
        let frames = delays.map { APNGWriter.Frame.solid(1, 1, rgba: red, delay: $0) }
        let data = APNGWriter.apng(width: 1, height: 1, frames: frames)
        let expected: [TimeInterval] = [0.1, 0.1, 0.03, 0.5, 0.05, 0.1, 0.012]
        #expect(try ImageHeader(data: data).frameDurations == expected)
        #expect(try KFCrossPlatformImage(data: data).frames.map(\.duration) == expected)
    }

    @Test func loopCountIsNumPlays() throws {
        for plays: UInt32 in [0, 1, 7] {
            let data = APNGWriter.apng(width: 1, height: 1, frames: [.solid(1, 1, rgba: red), .solid(1, 1, rgba: blue)], plays: plays)
            #expect(try ImageHeader(data: data).loopCount == Int(plays))
            #expect(try KFCrossPlatformImage(data: data).loopCount == Int(plays))
        }
    }

    @Test func aDefaultImageOutsideTheAnimationIsNotAFrame() throws {
        let data = APNGWriter.apng(width: 2, height: 2, frames: [
            .solid(2, 2, rgba: red), .solid(1, 1, x: 1, y: 1, rgba: blue),
        ], defaultImage: .solid(2, 2, rgba: magenta))
        let header = try ImageHeader(data: data)
        #expect(header.frameCount == 2)
        let image = try KFCrossPlatformImage(data: data)
        #expect(image.frames.count == 2)
        #expect(pixel(image.frames[0], 0, 0) == red)
        #expect(pixel(image.frames[1], 1, 1) == blue)
        #expect(pixel(image.frames[1], 0, 0) == red)
        let first = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(onlyFirstFrame: true))
        #expect(first.frames.count == 1)
        #expect(pixel(first.firstFrame, 0, 0) == red)
    }

    @Test func aDefaultImageInsideTheAnimationIsTheFirstFrame() throws {
        let data = APNGWriter.apng(width: 2, height: 1, frames: [.solid(2, 1, rgba: magenta), .solid(1, 1, rgba: green)])
        let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(onlyFirstFrame: true))
        #expect(pixel(image.firstFrame, 0, 0) == magenta)
        #expect(try KFCrossPlatformImage(data: data).frames.count == 2)
    }

    @Test func aSingleFrameAPNGIsAStill() throws {
        let data = APNGWriter.apng(width: 2, height: 1, frames: [.solid(2, 1, rgba: green)], plays: 4)
        let header = try ImageHeader(data: data)
        #expect(header.frameCount == 1 && header.loopCount == 0)
        let image = try KFCrossPlatformImage(data: data)
        #expect(!image.isAnimated && image.loopCount == 0)
        #expect(pixel(image.firstFrame, 1, 0) == green)
    }

    @Test func paletteFramesShareThePLTEAndTRNS() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255), (0, 255, 0)]
        let frames = [
            APNGWriter.Frame(width: 2, height: 2, samples: [0, 0, 0, 0]),
            APNGWriter.Frame(width: 2, height: 1, y: 1, blend: 1, samples: [1, 2]),
        ]
        let data = APNGWriter.apng(width: 2, height: 2, frames: frames, palette: palette, paletteAlpha: [255, 255, 0])
        let image = try KFCrossPlatformImage(data: data)
        #expect(pixel(image.frames[1], 0, 0) == red)
        #expect(pixel(image.frames[1], 0, 1) == blue)
        // Index 2 is transparent through tRNS, so blending over leaves the red under it.
        #expect(pixel(image.frames[1], 1, 1) == red)
    }

    @Test func lazyAndPreloadedFramesAreTheSame() throws {
        let data = disposalAnimation(dispose: 2)
        let preloaded = try KFCrossPlatformImage(data: data)
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        let source = try #require(lazy.frameSource)
        #expect(lazy.frames.count == 1)
        #expect(lazy.frameCount == 3)
        #expect(lazy.loopCount == preloaded.loopCount)
        #expect(lazy.firstFrame.pixels == preloaded.frames[0].pixels)
        #expect(lazy.kf.animatedImageData == data)
        for index in [0, 1, 2, 1, 0, 2, 2] {
            let frame = try source.frame(at: index, maxSize: nil)
            #expect(frame.pixels == preloaded.frames[index].pixels, "frame \(index)")
            #expect(source.duration(at: index) == preloaded.frames[index].duration)
        }
        #expect(throws: KingfisherError.self) { try source.frame(at: 3, maxSize: nil) }
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let data = disposalAnimation(dispose: 0)
        let fewFrames = ImageCreatingOptions(limits: ImageDecodingLimits(maxFrameCount: 2))
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: data, options: fewFrames) }
        let smallFrames = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 15))
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: data, options: smallFrames) }
        // Only the first frame: the frame-count limit does not apply.
        var firstOnly = fewFrames
        firstOnly.onlyFirstFrame = true
        #expect(try KFCrossPlatformImage(data: data, options: firstOnly).frames.count == 1)
    }

    @Test func animatedPNGsAreCachedWithoutLosingFrames() throws {
        let data = disposalAnimation(dispose: 1)
        let preloaded = try KFCrossPlatformImage(data: data)
        // An animation whose format the encoder writes only as a still is cached as GIF, as before.
        #expect(DefaultCacheSerializer.format(for: preloaded, original: data) == .GIF)
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        #expect(lazy.kf.pngRepresentation() == data)
        let serialized = try #require(DefaultCacheSerializer.default.data(with: lazy, original: data))
        #expect(try ImageHeader(data: serialized).frameCount == 3)
        // A still PNG is still re-encoded.
        let still = try KFCrossPlatformImage(data: PNGWriter.png(width: 1, height: 1, bitDepth: 8, colorType: .rgb, samples: [1, 2, 3]))
        #expect(still.kf.animatedImageData == nil)
    }

    /// Files from another writer (real deflate, every row filter, cropped frames at offsets), held
    /// to frames from an independent spec-following decoder (see Fixtures/apng/README.md).
    @Test(arguments: 0..<4)
    func matchesTheReferenceDecoderOnPillowFiles(variant: Int) throws {
        let data = try Fixtures.data("apng/pillow-\(variant).png")
        let reference = [UInt8](try Fixtures.data("apng/pillow-\(variant).rgba"))
        let image = try KFCrossPlatformImage(data: data)
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        let source = try #require(lazy.frameSource)
        let frameBytes = 24 * 18 * 4
        #expect(image.pixelWidth == 24 && image.pixelHeight == 18)
        #expect(image.frames.count == reference.count / frameBytes)
        #expect(image.loopCount == 3)
        for (index, frame) in image.frames.enumerated() {
            let expected = reference[(index * frameBytes)..<((index + 1) * frameBytes)]
            let differing = zip(frame.pixels, expected).filter { abs(Int($0) - Int($1)) > 1 }.count
            #expect(differing == 0, "frame \(index)")
            #expect(try source.frame(at: index, maxSize: nil).pixels == frame.pixels, "lazy frame \(index)")
        }
    }

    @Test func anAcTLAfterTheIDATIsIgnored() throws {
        let acTL = PNGWriter.Chunk(type: "acTL", data: PNGWriter.bigEndian32(2) + PNGWriter.bigEndian32(0))
        let still = PNGWriter.png(width: 1, height: 1, bitDepth: 8, colorType: .rgba, samples: [0, 0, 255, 255])
        var bytes = [UInt8](still)
        // Put the acTL before IEND (the last 12 bytes).
        bytes.insert(contentsOf: PNGWriter.chunkBytes(acTL), at: bytes.count - 12)
        let image = try KFCrossPlatformImage(data: Data(bytes))
        #expect(!image.isAnimated)
        #expect(try ImageHeader(data: Data(bytes)).frameCount == 1)
    }
}
