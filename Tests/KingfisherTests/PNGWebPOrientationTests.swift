import Foundation
import Testing
@testable import Kingfisher

/// A 3×2 picture whose every pixel differs, as straight opaque RGB.
private let storedWidth = 3
private let storedHeight = 2
private func storedColor(_ x: Int, _ y: Int) -> [UInt8] {
    [UInt8(10 + 80 * x), UInt8(20 + 100 * y), UInt8(50 + 30 * x + 7 * y), 255]
}

/// The TIFF structure of an EXIF block holding only the orientation tag.
private func tiff(orientation: Int, littleEndian: Bool) -> [UInt8] {
    func u16(_ v: Int) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: Int) -> [UInt8] { littleEndian ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
    let order: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
    // Header, IFD0 at 8 with one SHORT entry (tag 0x0112, count 1, value left-justified), no next IFD.
    return order + u16(42) + u32(8) + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
}

/// Where the upright pixel (`x`, `y`) comes from in the stored picture, for each EXIF orientation,
/// written out from the EXIF definitions (independently of the library's own table).
private func storedSource(orientation: Int, x: Int, y: Int) -> (Int, Int) {
    let w = storedWidth, h = storedHeight
    switch orientation {
    case 2: return (w - 1 - x, y)
    case 3: return (w - 1 - x, h - 1 - y)
    case 4: return (x, h - 1 - y)
    case 5: return (y, x)
    case 6: return (y, h - 1 - x)
    case 7: return (w - 1 - y, h - 1 - x)
    case 8: return (w - 1 - y, x)
    default: return (x, y)
    }
}

/// Checks that `frame` is the stored picture turned upright for `orientation`.
private func expectUpright(_ frame: ImageFrame, orientation: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    let swaps = orientation >= 5
    #expect(frame.width == (swaps ? storedHeight : storedWidth), sourceLocation: sourceLocation)
    #expect(frame.height == (swaps ? storedWidth : storedHeight), sourceLocation: sourceLocation)
    for y in 0..<frame.height {
        for x in 0..<frame.width {
            let (sx, sy) = storedSource(orientation: orientation, x: x, y: y)
            let p = frame.pixel(x: x, y: y)
            #expect(p.map { [$0.r, $0.g, $0.b, $0.a] } == storedColor(sx, sy),
                    "orientation \(orientation), pixel \(x),\(y)", sourceLocation: sourceLocation)
        }
    }
}

private func storedSamples() -> [UInt8] {
    (0..<storedHeight).flatMap { y in (0..<storedWidth).flatMap { x in storedColor(x, y) } }
}

private func pngWithEXIF(orientation: Int, littleEndian: Bool = false, prefix: Bool = false) -> Data {
    let exif = PNGWriter.Chunk(type: "eXIf", data: (prefix ? Array("Exif\0\0".utf8) : []) + tiff(orientation: orientation, littleEndian: littleEndian))
    return PNGWriter.png(width: storedWidth, height: storedHeight, bitDepth: 8, colorType: .rgba,
                         samples: storedSamples().map(UInt16.init), extraChunks: [exif])
}

/// `webp` (a simple-format file or one already extended) with an `EXIF` chunk appended and, when
/// `flag` is set, the VP8X EXIF flag on; a simple file gets a VP8X chunk first.
private func addingEXIF(to webp: Data, payload: [UInt8], flag: Bool = true) -> Data {
    var bytes = [UInt8](webp)
    func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
    if Array(bytes[12..<16]) != Array("VP8X".utf8) {
        let w = storedWidth - 1, h = storedHeight - 1
        let vp8x = Array("VP8X".utf8) + le32(10) + [0, 0, 0, 0] + [UInt8(w), 0, 0, UInt8(h), 0, 0]
        bytes.insert(contentsOf: vp8x, at: 12)
    }
    if flag { bytes[20] |= 0x08 }
    bytes += Array("EXIF".utf8) + le32(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
    bytes.replaceSubrange(4..<8, with: le32(bytes.count - 8))
    return Data(bytes)
}

private func storedImage() throws -> KFCrossPlatformImage {
    let frame = try #require(ImageFrame(width: storedWidth, height: storedHeight, pixels: storedSamples()))
    return KFCrossPlatformImage(frame: frame)
}

@Suite struct PNGWebPOrientationTests {
    @Test(arguments: 1...8)
    func pngEXIfOrientation(orientation: Int) throws {
        for littleEndian in [false, true] {
            let data = pngWithEXIF(orientation: orientation, littleEndian: littleEndian)
            let header = try ImageHeader(data: data)
            #expect(header.orientation.rawValue == orientation)
            #expect(header.pixelWidth == storedWidth && header.pixelHeight == storedHeight)
            let image = try KFCrossPlatformImage(data: data)
            expectUpright(image.firstFrame, orientation: orientation)
        }
    }

    @Test func pngEXIfWithTheJPEGPrefixOrAfterIDATIsRead() throws {
        expectUpright(try KFCrossPlatformImage(data: pngWithEXIF(orientation: 6, prefix: true)).firstFrame, orientation: 6)
        var bytes = [UInt8](PNGWriter.png(width: storedWidth, height: storedHeight, bitDepth: 8, colorType: .rgba,
                                          samples: storedSamples().map(UInt16.init)))
        bytes.insert(contentsOf: PNGWriter.chunkBytes(.init(type: "eXIf", data: tiff(orientation: 8, littleEndian: true))),
                     at: bytes.count - 12)
        #expect(try ImageHeader(data: Data(bytes)).orientation == .left)
        expectUpright(try KFCrossPlatformImage(data: Data(bytes)).firstFrame, orientation: 8)
    }

    @Test func aDamagedEXIfLeavesThePictureAsStored() throws {
        let exif = PNGWriter.Chunk(type: "eXIf", data: [0x4D, 0x4D, 0, 42, 0, 0, 0xFF, 0xFF])
        let data = PNGWriter.png(width: storedWidth, height: storedHeight, bitDepth: 8, colorType: .rgba,
                                 samples: storedSamples().map(UInt16.init), extraChunks: [exif])
        #expect(try ImageHeader(data: data).orientation == .up)
        expectUpright(try KFCrossPlatformImage(data: data).firstFrame, orientation: 1)
    }

    @Test func apngFramesAreTurnedToo() throws {
        let exif = PNGWriter.Chunk(type: "eXIf", data: tiff(orientation: 6, littleEndian: false))
        let frames = [
            APNGWriter.Frame(width: storedWidth, height: storedHeight, samples: storedSamples()),
            APNGWriter.Frame(width: 1, height: 1, samples: [0, 0, 0, 255]),
        ]
        let data = APNGWriter.apng(width: storedWidth, height: storedHeight, frames: frames, extraChunks: [exif])
        #expect(try ImageHeader(data: data).orientation == .right)
        let image = try KFCrossPlatformImage(data: data)
        expectUpright(image.frames[0], orientation: 6)
        // Stored (0,0) lands at upright (h-1, 0) for orientation 6.
        #expect(image.frames[1].pixel(x: storedHeight - 1, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 255))
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        let source = try #require(lazy.frameSource)
        #expect(try source.frame(at: 1, maxSize: nil).pixels == image.frames[1].pixels)
        #expect(lazy.firstFrame.pixels == image.frames[0].pixels)
    }

    @Test(arguments: 1...8)
    func webpEXIFOrientation(orientation: Int) throws {
        let plain = try storedImage().encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        for littleEndian in [false, true] {
            let data = addingEXIF(to: plain, payload: tiff(orientation: orientation, littleEndian: littleEndian))
            let header = try ImageHeader(data: data)
            #expect(header.format == .WebP)
            #expect(header.orientation.rawValue == orientation)
            #expect(header.pixelWidth == storedWidth && header.pixelHeight == storedHeight)
            expectUpright(try KFCrossPlatformImage(data: data).firstFrame, orientation: orientation)
        }
    }

    @Test func webpEXIFWithoutTheVP8XFlagIsIgnored() throws {
        let plain = try storedImage().encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        let data = addingEXIF(to: plain, payload: tiff(orientation: 3, littleEndian: true), flag: false)
        #expect(try ImageHeader(data: data).orientation == .up)
        expectUpright(try KFCrossPlatformImage(data: data).firstFrame, orientation: 1)
        let prefixed = addingEXIF(to: plain, payload: Array("Exif\0\0".utf8) + tiff(orientation: 3, littleEndian: true))
        expectUpright(try KFCrossPlatformImage(data: prefixed).firstFrame, orientation: 3)
    }

    @Test func animatedWebPFramesAreTurned() throws {
        let first = try storedImage().firstFrame.withDuration(0.1)
        let second = try #require(ImageFrame(width: storedWidth, height: storedHeight,
                                             pixels: Array([[UInt8]](repeating: [0, 0, 0, 255], count: 6).joined()), duration: 0.1))
        let animation = try #require(KFCrossPlatformImage(frames: [first, second]))
        let plain = try animation.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        let data = addingEXIF(to: plain, payload: tiff(orientation: 8, littleEndian: false))
        #expect(try ImageHeader(data: data).orientation == .left)
        #expect(try ImageHeader(data: data).frameCount == 2)
        let image = try KFCrossPlatformImage(data: data)
        #expect(image.frames.count == 2)
        expectUpright(image.frames[0], orientation: 8)
        #expect(image.frames[1].width == storedHeight)
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        let source = try #require(lazy.frameSource)
        expectUpright(try source.frame(at: 0, maxSize: nil), orientation: 8)
        #expect(try source.frame(at: 1, maxSize: nil).pixels == image.frames[1].pixels)
    }

    @Test func webpScalingBoundsTheUprightSize() throws {
        // A 40×20 picture turned a quarter is 20×40 upright; a minimum of 10×20 upright allows half size.
        let wide = try #require(ImageFrame(width: 40, height: 20, pixels: [UInt8](repeating: 255, count: 40 * 20 * 4)))
        let plain = try KFCrossPlatformImage(frame: wide).encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        var bytes = [UInt8](addingEXIF(to: plain, payload: tiff(orientation: 6, littleEndian: true)))
        // The VP8X canvas written by `addingEXIF` is the 3×2 test picture's; give it this picture's size.
        bytes.replaceSubrange(24..<30, with: [39, 0, 0, 19, 0, 0])
        let options = ImageCreatingOptions(minimumPixelSize: CGSize(width: 10, height: 20))
        let image = try KFCrossPlatformImage(data: Data(bytes), options: options)
        #expect(image.pixelWidth == 10 && image.pixelHeight == 20)
    }
}
