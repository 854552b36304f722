import Foundation
import Testing
@testable import Kingfisher

/// How APNGs with odd or broken animation chunks decode: a valid order browsers accept is
/// accepted, and a broken animation shows the still IDAT image (the PNG specification's
/// fallback), or fails with a `KingfisherError` when a lazily decoded frame turns out broken.
@Suite struct APNGFallbackTests {
    private static let red: [UInt8] = [255, 0, 0, 255]
    private static let blue: [UInt8] = [0, 0, 255, 255]
    private static let green: [UInt8] = [0, 255, 0, 255]

    /// Three frames on a 2×2 canvas: red (the IDAT image), blue 1×1 at (0,0), green 2×1 at (0,1).
    private static let frames: [APNGWriter.Frame] = [.solid(2, 2, rgba: red), .solid(1, 1, rgba: blue),
                                                     .solid(2, 1, y: 1, rgba: green)]
    private static var good: [PNGWriter.Chunk] { APNGWriter.chunks(width: 2, height: 2, frames: frames) }

    private static func pixels(_ frame: ImageFrame) -> [[UInt8]] {
        (0..<2).flatMap { y in (0..<2).map { x in frame.pixel(x: x, y: y).map { [$0.r, $0.g, $0.b, $0.a] } ?? [] } }
    }

    /// Expects `data` to decode, eagerly and lazily, as the still red IDAT image.
    private static func expectDefaultImage(_ data: Data, _ name: String) throws {
        let header = try ImageHeader(data: data)
        #expect(header.frameCount == 1, "\(name)")
        for preload in [true, false] {
            let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: preload))
            #expect(!image.isAnimated && image.frameCount == 1, "\(name)")
            #expect(pixels(image.firstFrame) == Array(repeating: red, count: 4), "\(name)")
        }
    }

    /// The zlib data of a solid straight-RGBA frame, with `extra` bytes after the stream.
    private static func zlib(width: Int, height: Int, rgba: [UInt8], extra: [UInt8] = []) -> [UInt8] {
        let samples = Array([[UInt8]](repeating: rgba, count: width * height).joined()).map(UInt16.init)
        return PNGWriter.zlibStored(PNGWriter.scanlines(width: width, height: height, bitDepth: 8, channels: 4,
                                                        samples: samples, interlaced: false)) + extra
    }

    @Test func anFcTLBeforeTheAcTLStartsTheAnimationWithTheIDATImage() throws {
        var chunks = Self.good
        let acTL = try #require(chunks.firstIndex { $0.type == "acTL" })
        let fcTL = try #require(chunks.firstIndex { $0.type == "fcTL" })
        #expect(fcTL == acTL + 1)
        chunks.swapAt(acTL, fcTL)
        #expect(chunks.map(\.type).prefix(4) == ["IHDR", "fcTL", "acTL", "IDAT"])
        let data = PNGWriter.file(chunks)
        let reference = try KFCrossPlatformImage(data: PNGWriter.file(Self.good))
        #expect(try ImageHeader(data: data).frameCount == 3)
        for preload in [true, false] {
            let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: preload))
            #expect(image.frameCount == 3)
            for index in 0..<3 {
                let frame = try image.frameSource?.frame(at: index, maxSize: nil) ?? image.frames[index]
                #expect(frame.pixels == reference.frames[index].pixels, "frame \(index), preload \(preload)")
            }
        }
        #expect(Self.pixels(reference.frames[1]) == [Self.blue, Self.red, Self.red, Self.red])
    }

    @Test func anFcTLWithoutAnyAcTLIsAStill() throws {
        let chunks = Self.good.filter { $0.type != "acTL" }
        try Self.expectDefaultImage(PNGWriter.file(chunks), "no acTL")
    }

    @Test(arguments: [(UInt32(3), "same"), (UInt32(2), "different")])
    func aSecondAcTLShowsTheDefaultImage(frames: UInt32, name: String) throws {
        var chunks = Self.good
        let acTL = try #require(chunks.firstIndex { $0.type == "acTL" })
        chunks.insert(PNGWriter.Chunk(type: "acTL", data: PNGWriter.bigEndian32(frames) + PNGWriter.bigEndian32(0)),
                      at: acTL + 1)
        try Self.expectDefaultImage(PNGWriter.file(chunks), "second acTL, \(name) count")
    }

    /// fdAT chunks whose zlib data holds more than their frame: rows beyond the fcTL's height, or
    /// bytes after the end of the stream.
    private static func oversizedFrames() throws -> [(String, Data)] {
        let fdAT = try #require(good.firstIndex { $0.type == "fdAT" })
        var variants: [(String, Data)] = []
        for (name, payload) in [
            ("two rows for a one-row frame", zlib(width: 1, height: 2, rgba: blue)),
            ("bytes after the zlib stream", zlib(width: 1, height: 1, rgba: blue, extra: [0x78, 0x01, 0x03, 0x00])),
        ] {
            var chunks = good
            chunks[fdAT].data = Array(chunks[fdAT].data.prefix(4)) + payload
            variants.append((name, PNGWriter.file(chunks)))
        }
        return variants
    }

    @Test func anFdATLargerThanItsFrameShowsTheDefaultImageOrFailsLazily() throws {
        let variants = try Self.oversizedFrames()
        #expect(variants.count == 2)
        for (name, data) in variants {
            // The chunks are sound, so the header still announces the animation.
            #expect(try ImageHeader(data: data).frameCount == 3, "\(name)")
            let image = try KFCrossPlatformImage(data: data)
            #expect(!image.isAnimated, "\(name)")
            #expect(Self.pixels(image.firstFrame) == Array(repeating: Self.red, count: 4), "\(name)")
            // Lazily, the first frame is sound and shown; the broken one fails when it is asked for.
            let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
            let source = try #require(lazy.frameSource)
            #expect(try source.frame(at: 0, maxSize: nil).pixels == image.firstFrame.pixels, "\(name)")
            #expect(throws: KingfisherError.self, "\(name)") { try source.frame(at: 1, maxSize: nil) }
        }
    }

    private static func brokenVariants() -> [(String, Data)] {
        let good = self.good
        var variants: [(String, Data)] = []
        func replacing(_ name: String, _ change: (inout [PNGWriter.Chunk]) -> Void) {
            var chunks = good
            change(&chunks)
            variants.append((name, PNGWriter.file(chunks)))
        }
        let fdATs = good.indices.filter { good[$0].type == "fdAT" }
        let fcTLs = good.indices.filter { good[$0].type == "fcTL" }
        replacing("sequence out of order") { $0[fdATs[0]].data[3] = 9 }
        replacing("sequence repeated") { $0[fcTLs[1]].data[3] = 0 }
        replacing("frame outside the canvas") { $0[fcTLs[1]].data[15] = 2 }  // x = 2 on a 2-wide canvas
        replacing("frame wider than the canvas") { $0[fcTLs[2]].data[7] = 3 }
        replacing("zero-sized frame") { $0[fcTLs[1]].data[7] = 0 }
        replacing("first fcTL not the canvas") { $0[fcTLs[0]].data[7] = 1 }
        replacing("too few frames announced") { $0[1].data[3] = 2 }
        replacing("too many frames announced") { $0[1].data[3] = 4 }
        replacing("fdAT too short for a sequence") { $0[fdATs[1]].data = [0, 0] }
        replacing("fdAT missing") { $0.remove(at: fdATs[1]) }
        replacing("bad dispose op") { $0[fcTLs[1]].data[24] = 3 }
        replacing("bad blend op") { $0[fcTLs[1]].data[25] = 2 }
        // A CRC that does not match the fdAT.
        var bytes = [UInt8](PNGWriter.file(good))
        if let fdATRange = bytes.firstRange(of: Array("fdAT".utf8)) { bytes[fdATRange.upperBound + 6] ^= 0xFF }
        variants.append(("damaged fdAT under its CRC", Data(bytes)))
        return variants
    }

    @Test func aBrokenAnimationStructureShowsTheDefaultImage() throws {
        let variants = Self.brokenVariants()
        #expect(variants.count == 13)
        for (name, data) in variants {
            try Self.expectDefaultImage(data, name)
        }
    }

    @Test(arguments: ["corrupt fdAT data", "fdAT without data"])
    func aFrameWhoseDataIsBrokenShowsTheDefaultImage(name: String) throws {
        var chunks = Self.good
        let fdATs = chunks.indices.filter { chunks[$0].type == "fdAT" }
        if name == "corrupt fdAT data" {
            chunks[fdATs[0]].data = Array(chunks[fdATs[0]].data.prefix(4)) + [0x78, 0x01, 0x07, 0xFF, 0xFF]
        } else {
            chunks[fdATs[1]].data = Array(chunks[fdATs[1]].data.prefix(4))
        }
        let data = PNGWriter.file(chunks)
        let image = try KFCrossPlatformImage(data: data)
        #expect(!image.isAnimated)
        #expect(Self.pixels(image.firstFrame) == Array(repeating: Self.red, count: 4))
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        #expect(throws: KingfisherError.self) {
            for index in 0..<lazy.frameCount { _ = try lazy.frameSource?.frame(at: index, maxSize: nil) }
        }
    }

    @Test func anAnimationCutShortIsAnError() throws {
        // Cut inside the last fdAT: the still IDAT image would need libpng to read past the end too.
        let whole = PNGWriter.file(Self.good)
        let lastFdAT = try #require([UInt8](whole).lastRange(of: Array("fdAT".utf8)))
        let cut = whole.prefix(lastFdAT.upperBound + 10)
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: cut) }
    }
}
