import Foundation
import Testing
@testable import Kingfisher

/// HEIC decoding through libheif, against fixtures made by heif-enc and decoded by heif-convert
/// (Fixtures/heic/make-fixtures.py makes both).
@Suite struct HEICCodecTests {
    /// Decodes `Fixtures/heic/<name>.heic`, keeping the stored colours so heif-convert's output,
    /// which is not colour-managed, is comparable.
    static func decode(_ name: String, minimum: CGSize? = nil, limits: ImageDecodingLimits = .default) throws -> KFCrossPlatformImage {
        let options = ImageCreatingOptions(limits: limits, minimumPixelSize: minimum, keepsSourceColors: true)
        return try KFCrossPlatformImage(data: Fixtures.data("heic/\(name).heic"), options: options)
    }

    /// heif-convert's PNG of `name`, decoded by Kingfisher's PNG codec (premultiplied, 16-bit reduced to 8).
    static func reference(_ name: String) throws -> ImageFrame {
        try KFCrossPlatformImage(data: Fixtures.data("heic/\(name).png")).firstFrame
    }

    /// The largest difference of any byte of two same-sized frames; `nil` when the sizes differ.
    static func maxDifference(_ a: ImageFrame, _ b: ImageFrame) -> Int? {
        guard a.width == b.width, a.height == b.height else { return nil }
        return zip(a.pixels, b.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    // Every 8-bit file goes through the same libheif conversion (YCbCr to 8-bit RGB) that
    // heif-convert asks for, so the bytes must be identical. Alpha is premultiplied on both sides
    // by the same rounding (the PNG codec's and ours).
    @Test(arguments: ["rgb8", "mono", "lossless444", "alpha", "icc", "nclx", "grid", "rot90", "mirror", "rotmirror", "cliprot",
                      "exifrot", "stillseq", "thumb", "thumbrot", "thumbrot2"])
    func eightBitFilesMatchHeifConvertExactly(name: String) throws {
        let image = try Self.decode(name)
        let expected = try Self.reference(name)
        #expect(image.frames.count == 1)
        #expect(Self.maxDifference(image.firstFrame, expected) == 0, "\(name) differs from heif-convert")
    }

    // heif-convert writes a 10-bit image as a 16-bit PNG (the sample shifted up); libheif reduces
    // it to 8 bits for us, and Kingfisher's PNG codec reduces the reference to 8 bits by its own
    // rounding. The two 8-bit reductions of one 10-bit value differ by at most one step.
    @Test func tenBitFileMatchesHeifConvertWithinOneStep() throws {
        let image = try Self.decode("rgb10")
        let expected = try Self.reference("rgb10")
        let difference = try #require(Self.maxDifference(image.firstFrame, expected))
        #expect(difference <= 1)
        #expect(image.isOpaque)
    }

    @Test func alphaIsStraightInTheFileAndPremultipliedInTheImage() throws {
        let image = try Self.decode("alpha")
        #expect(!image.isOpaque)
        // The alpha ramp runs left to right from 0; the leftmost column past the dark corner is transparent.
        let transparent = try #require(image.firstFrame.pixel(x: 0, y: 10))
        #expect(transparent == RGBA8(r: 0, g: 0, b: 0, a: 0))
        let half = try #require(image.firstFrame.pixel(x: 16, y: 10))
        #expect(half.a > 100 && half.a < 160 && half.r <= half.a && half.g <= half.a && half.b <= half.a)
    }

    @Test func premultipliedAlphaIsKeptAsStored() throws {
        // heif-convert writes a premultiplied file's samples as they are stored; so do we, as our
        // frames are premultiplied too.
        let image = try Self.decode("premul")
        let expected = [UInt8](try Fixtures.data("heic/premul.rgba"))
        #expect(image.firstFrame.pixels == expected)
        #expect(!image.isOpaque)
    }

    @Test func irotAndExifOrientationTurnTheImageOnce() throws {
        let turned = try Self.decode("rot90")
        let withExif = try Self.decode("exifrot")
        #expect(withExif.pixelWidth == 24 && withExif.pixelHeight == 32)
        #expect(withExif.firstFrame == turned.firstFrame)
        // A quarter turn anticlockwise carries the dark top-left corner of the stored picture to
        // the bottom left. The EXIF tag (6: turn clockwise) applied on top would put it top left.
        let bottomLeft = try #require(withExif.firstFrame.pixel(x: 1, y: 30))
        let topLeft = try #require(withExif.firstFrame.pixel(x: 1, y: 1))
        #expect(bottomLeft.r < 30 && bottomLeft.g < 30)
        #expect(topLeft.r > 100 || topLeft.g > 100 || topLeft.b > 100)
        let header = try ImageHeader(data: Fixtures.data("heic/exifrot.heic"))
        #expect(header.orientedPixelSize == (24, 32))
    }

    @Test func cropThenRotationGivesTheUprightCleanAperture() throws {
        let image = try Self.decode("cliprot")
        #expect(image.pixelWidth == 20 && image.pixelHeight == 14)
        let header = try ImageHeader(data: Fixtures.data("heic/cliprot.heic"))
        #expect(header.orientedPixelSize == (20, 14))
    }

    @Test func gridOfFourTilesIsAssembledAndCropped() throws {
        let image = try Self.decode("grid")
        #expect(image.pixelWidth == 120 && image.pixelHeight == 100)
    }

    @Test func colourProfilesAreRead() throws {
        let icc = try HEICCodec.primaryColorProfile(Fixtures.data("heic/icc.heic"))
        guard case .icc(let profile) = icc else {
            Issue.record("no ICC profile: \(String(describing: icc))")
            return
        }
        #expect(profile.count > 128 && profile[36..<40] == Data("acsp".utf8))
        #expect(try HEICCodec.primaryColorProfile(Fixtures.data("heic/nclx.heic"))
                == .cicp(colorPrimaries: 12, transferCharacteristics: 13))
        #expect(try HEICCodec.primaryColorProfile(Fixtures.data("heic/rgb8.heic")) == nil)
        // Converted to sRGB by default, the Display P3 file still decodes at its size.
        let converted = try KFCrossPlatformImage(data: Fixtures.data("heic/nclx.heic"))
        #expect(converted.pixelWidth == 32 && converted.pixelHeight == 24)
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        for (name, pixels) in [("rgb8", 32 * 24), ("grid", 120 * 100)] {
            #expect(try Self.decode(name, limits: ImageDecodingLimits(maxPixelsPerFrame: pixels)).pixelWidth > 0)
            do {
                _ = try Self.decode(name, limits: ImageDecodingLimits(maxPixelsPerFrame: pixels - 1))
                Issue.record("\(name) decoded over the limit")
            } catch let error as KingfisherError {
                #expect(error.errorCode == 4104)
            }
        }
    }

    @Test func concurrentDecodesAgreeWithSerialOnes() async throws {
        let names = ["rgb8", "alpha", "grid", "rot90", "rgb10", "thumb", "premul", "cliprot"]
        let serial = try names.map { try Self.decode($0).firstFrame }
        let concurrent = try await withThrowingTaskGroup(of: (Int, ImageFrame).self) { group in
            for _ in 0..<4 {
                for (index, name) in names.enumerated() {
                    group.addTask { (index, try Self.decode(name).firstFrame) }
                }
            }
            var results: [(Int, ImageFrame)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(concurrent.count == names.count * 4)
        for (index, frame) in concurrent { #expect(frame == serial[index], "\(names[index])") }
    }

    @Test func encodingIsRefusedAsDecodeOnly() throws {
        let image = try Self.decode("rgb8")
        do {
            _ = try image.encoded(as: .HEIC)
            Issue.record("HEIC was encoded")
        } catch let error as KingfisherError {
            #expect(error.localizedDescription.contains("HEIC is decode-only"))
        }
    }
}
