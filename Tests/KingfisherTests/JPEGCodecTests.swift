import Foundation
import Testing
@testable import Kingfisher

/// The four 24×16 blocks of the JPEG fixtures: red, green / blue, light grey.
private let quadrantColors: [(x: Int, y: Int, r: Int, g: Int, b: Int)] = [
    (8, 8, 220, 30, 30), (40, 8, 30, 200, 40), (8, 24, 30, 40, 210), (40, 24, 240, 240, 240),
]

private func expectQuadrants(_ image: KFCrossPlatformImage, tolerance: Int = 6, gray: Bool = false,
                             sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(image.pixelWidth == 48 && image.pixelHeight == 32, sourceLocation: sourceLocation)
    for spot in quadrantColors {
        guard let pixel = image.firstFrame.pixel(x: spot.x, y: spot.y) else {
            Issue.record("no pixel at \(spot)", sourceLocation: sourceLocation)
            continue
        }
        var expected = (spot.r, spot.g, spot.b)
        if gray {
            let luma = (299 * spot.r + 587 * spot.g + 114 * spot.b + 500) / 1000
            expected = (luma, luma, luma)
        }
        let error = max(abs(Int(pixel.r) - expected.0), abs(Int(pixel.g) - expected.1), abs(Int(pixel.b) - expected.2))
        #expect(error <= tolerance && pixel.a == 255, "pixel \(pixel) at (\(spot.x),\(spot.y)), expected \(expected)",
                sourceLocation: sourceLocation)
    }
}

@Suite struct JPEGCodecTests {
    @Test func roundTripKeepsSizeAndColour() throws {
        let image = TestImages.gradient(width: 64, height: 48)
        let data = try image.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 0.95))
        #expect(data.kf.imageFormat == .JPEG)
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(decoded.pixelWidth == 64 && decoded.pixelHeight == 48)
        #expect(decoded.isOpaque && !decoded.isAnimated)
        #expect(TestImages.meanDifference(decoded.firstFrame, image.firstFrame) < 2.5)
    }

    @Test func qualityChangesSize() throws {
        let image = TestImages.gradient(width: 128, height: 128)
        let small = try #require(image.kf.jpegRepresentation(compressionQuality: 0.2))
        let large = try #require(image.kf.jpegRepresentation(compressionQuality: 1.0))
        #expect(small.count < large.count)
    }

    @Test func alphaIsDroppedOverBlack() throws {
        let image = TestImages.solid(width: 16, height: 16, RGBA8(r: 100, g: 50, b: 0, a: 128))
        let decoded = try KFCrossPlatformImage(data: try image.encoded(as: .JPEG))
        let pixel = try #require(decoded.firstFrame.pixel(x: 8, y: 8))
        #expect(abs(Int(pixel.r) - 100) <= 3 && abs(Int(pixel.g) - 50) <= 3 && pixel.a == 255)
    }

    @Test(arguments: ["progressive", "gray", "cmyk", "ycck"])
    func decodesEveryKind(name: String) throws {
        let data = try Fixtures.data("jpeg/\(name).jpg")
        let image = try KFCrossPlatformImage(data: data)
        expectQuadrants(image, gray: name == "gray")
        let header = try ImageHeader(data: data)
        #expect(header.format == .JPEG && header.pixelWidth == 48 && header.pixelHeight == 32)
    }

    @Test(arguments: ImageOrientation.allCases)
    func orientationGivesUprightPixels(orientation: ImageOrientation) throws {
        // The upright picture: 32×16, left half red, right half blue, with a green 16×8 block at top left.
        let upright = Self.orientationPicture()
        let stored = Self.storedPixels(for: upright, orientation: orientation)
        let jpeg = try KFCrossPlatformImage(frame: stored).encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 1))
        let data = Self.insertingExif(orientation: orientation, into: jpeg)
        #expect(try ImageHeader(data: data).orientation == orientation)
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(decoded.pixelWidth == 32 && decoded.pixelHeight == 16)
        for (x, y) in [(4, 4), (12, 12), (28, 4), (20, 12), (4, 12)] {
            let got = try #require(decoded.firstFrame.pixel(x: x, y: y))
            let want = try #require(upright.pixel(x: x, y: y))
            let error = max(abs(Int(got.r) - Int(want.r)), abs(Int(got.g) - Int(want.g)), abs(Int(got.b) - Int(want.b)))
            #expect(error <= 12, "orientation \(orientation.rawValue) at (\(x),\(y)): \(got) vs \(want)")
        }
    }

    @Test func dctScalingPicksTheSmallestSufficientSize() throws {
        let data = try TestImages.gradient(width: 200, height: 150).encoded(as: .JPEG)
        func size(_ minimum: CGSize?) throws -> (Int, Int) {
            let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: minimum))
            return (image.pixelWidth, image.pixelHeight)
        }
        #expect(try size(nil) == (200, 150))
        #expect(try size(CGSize(width: 25, height: 10)) == (25, 19))
        #expect(try size(CGSize(width: 26, height: 10)) == (50, 38))
        #expect(try size(CGSize(width: 60, height: 60)) == (100, 75))
        #expect(try size(CGSize(width: 0, height: 76)) == (200, 150))
        #expect(try size(CGSize(width: 500, height: 500)) == (200, 150))
    }

    @Test func dctScalingCountsOrientation() throws {
        // Stored 200×100 with orientation 6 shows as 100×200; a minimum of 20×45 allows 1/4 (25×50 upright).
        let stored = TestImages.gradientFrame(width: 200, height: 100)
        let jpeg = try KFCrossPlatformImage(frame: stored).encoded(as: .JPEG)
        let data = Self.insertingExif(orientation: .right, into: jpeg)
        let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: CGSize(width: 20, height: 45)))
        #expect(image.pixelWidth == 25 && image.pixelHeight == 50)
    }

    @Test func limitsRefuseFromTheHeader() throws {
        var bytes = [UInt8](try TestImages.gradient(width: 16, height: 16).encoded(as: .JPEG))
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0xEA; bytes[sof + 6] = 0x60  // height 60000
        bytes[sof + 7] = 0xEA; bytes[sof + 8] = 0x60  // width 60000
        do {
            _ = try KFCrossPlatformImage(data: Data(bytes))
            Issue.record("a 60000×60000 JPEG decoded")
        } catch let error as KingfisherError {
            guard case .processorError(reason: .imageLimitExceeded(format: .JPEG, violation: .pixelsPerFrame(60000, 60000, _))) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.localizedDescription.contains("JPEG"))
        }
        let tight = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 255))
        #expect(throws: KingfisherError.self) {
            try KFCrossPlatformImage(data: TestImages.gradient(width: 16, height: 16).encoded(as: .JPEG), options: tight)
        }
    }

    @Test func truncatedDataIsAnError() throws {
        let data = try TestImages.gradient(width: 256, height: 256).encoded(as: .JPEG)
        do {
            _ = try KFCrossPlatformImage(data: data.prefix(data.count * 3 / 4))
            Issue.record("half a JPEG decoded")
        } catch let error as KingfisherError {
            guard case .processorError(reason: .decodingFailed(format: .JPEG, _)) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(error.localizedDescription.contains("truncated"))
        }
    }

    @Test(arguments: ["baseline", "progressive"])
    func damagedFilesOnlyThrow(kind: String) throws {
        let valid = kind == "baseline"
            ? try TestImages.gradient(width: 32, height: 24).encoded(as: .JPEG)
            : try Fixtures.data("jpeg/progressive.jpg")
        let result = Mutations.decodeAll(Mutations.damaged(valid, count: 3000))
        #expect(result.foreignErrors == 0)
        #expect(result.decoded < 3000)
    }
}

extension JPEGCodecTests {
    static func orientationPicture() -> ImageFrame {
        var pixels = [UInt8](repeating: 255, count: 32 * 16 * 4)
        for y in 0..<16 {
            for x in 0..<32 {
                let offset = (y * 32 + x) * 4
                let color: (UInt8, UInt8, UInt8) = x < 16 && y < 8 ? (20, 200, 20) : (x < 16 ? (220, 20, 20) : (20, 20, 220))
                pixels[offset] = color.0
                pixels[offset + 1] = color.1
                pixels[offset + 2] = color.2
            }
        }
        return ImageFrame(unchecked: 32, height: 16, pixels: pixels)
    }

    /// The stored pixels that `orientation` turns into `upright`: try every stored position.
    static func storedPixels(for upright: ImageFrame, orientation: ImageOrientation) -> ImageFrame {
        let storedWidth = orientation.swapsDimensions ? upright.height : upright.width
        let storedHeight = orientation.swapsDimensions ? upright.width : upright.height
        // Number each stored pixel, apply the orientation, and read back where each one went.
        var indices = [UInt8](repeating: 0, count: storedWidth * storedHeight * 4)
        for index in 0..<(storedWidth * storedHeight) {
            indices[index * 4] = UInt8(index & 0xFF)
            indices[index * 4 + 1] = UInt8(index >> 8)
        }
        let moved = orientation.apply(to: ImageFrame(unchecked: storedWidth, height: storedHeight, pixels: indices))
        var stored = [UInt8](repeating: 0, count: indices.count)
        for uprightIndex in 0..<(upright.width * upright.height) {
            let source = Int(moved.pixels[uprightIndex * 4]) | Int(moved.pixels[uprightIndex * 4 + 1]) << 8
            for channel in 0..<4 {
                stored[source * 4 + channel] = upright.pixels[uprightIndex * 4 + channel]
            }
        }
        return ImageFrame(unchecked: storedWidth, height: storedHeight, pixels: stored)
    }

    /// `jpeg` with an APP1 Exif segment (big-endian TIFF, IFD0 holding only the orientation) after SOI.
    static func insertingExif(orientation: ImageOrientation, into jpeg: Data) -> Data {
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        tiff += [0, 1]  // one entry
        tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(orientation.rawValue), 0, 0]
        tiff += [0, 0, 0, 0]  // no next IFD
        let payload = Array("Exif\0\0".utf8) + tiff
        let length = payload.count + 2
        var segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        segment += payload
        var bytes = [UInt8](jpeg)
        bytes.insert(contentsOf: segment, at: 2)
        return Data(bytes)
    }
}
