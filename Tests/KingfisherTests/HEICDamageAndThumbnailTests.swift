import Foundation
import Testing
@testable import Kingfisher

/// HEIC thumbnails standing in for the primary image, image sequences, and damaged files.
@Suite struct HEICDamageAndThumbnailTests {
    @Test(arguments: [
        (nil, 64, 48), (CGSize(width: 16, height: 12), 16, 12), (CGSize(width: 10, height: 0), 16, 12),
        (CGSize(width: 0, height: 12), 16, 12), (CGSize(width: 17, height: 12), 64, 48),
        (CGSize(width: 16, height: 13), 64, 48), (CGSize(width: 15.5, height: 11.2), 16, 12),
    ] as [(CGSize?, Int, Int)])
    func thumbnailIsDecodedOnlyWhenLargeEnough(minimum: CGSize?, width: Int, height: Int) throws {
        let image = try HEICCodecTests.decode("thumb", minimum: minimum)
        #expect(image.pixelWidth == width && image.pixelHeight == height)
    }

    @Test func thumbnailMustBeTurnedAsThePrimaryIs() throws {
        // The primary is turned a quarter; the thumbnail is not: it never stands in.
        let unturned = try HEICCodecTests.decode("thumbrot", minimum: CGSize(width: 12, height: 16))
        #expect(unturned.pixelWidth == 48 && unturned.pixelHeight == 64)
        let sideways = try HEICCodecTests.decode("thumbrot", minimum: CGSize(width: 16, height: 12))
        #expect(sideways.pixelWidth == 48 && sideways.pixelHeight == 64)
        // Both turned: the thumbnail is used, upright, when the upright minimum allows it.
        let turned = try HEICCodecTests.decode("thumbrot2", minimum: CGSize(width: 12, height: 16))
        #expect(turned.pixelWidth == 12 && turned.pixelHeight == 16)
        let full = try HEICCodecTests.decode("thumbrot2", minimum: CGSize(width: 13, height: 16))
        #expect(full.pixelWidth == 48 && full.pixelHeight == 64)
        // The turned thumbnail has its dark corner where the turned primary has it, bottom left.
        let corner = try #require(turned.firstFrame.pixel(x: 0, y: 15))
        #expect(corner.r < 60 && corner.g < 60)
    }

    @Test func thumbnailWithoutThePrimarysAlphaIsNotUsed() throws {
        let minimum = CGSize(width: 16, height: 12)
        let withAlpha = try HEICCodecTests.decode("thumbalpha", minimum: minimum)
        #expect(withAlpha.pixelWidth == 16 && withAlpha.pixelHeight == 12 && !withAlpha.isOpaque)
        let withoutAlpha = try HEICCodecTests.decode("thumbnoalpha", minimum: minimum)
        #expect(withoutAlpha.pixelWidth == 64 && withoutAlpha.pixelHeight == 48 && !withoutAlpha.isOpaque)
    }

    @Test func thumbnailWithoutAProfileShowsThePrimarysColours() throws {
        // Only the primary declares Display P3; the thumbnail standing in is converted from it too.
        let data = try Fixtures.data("heic/thumbp3.heic")
        let minimum = CGSize(width: 16, height: 12)
        let converted = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: minimum))
        let kept = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(minimumPixelSize: minimum, keepsSourceColors: true))
        #expect(converted.pixelWidth == 16 && kept.pixelWidth == 16)
        #expect(converted.firstFrame.pixels != kept.firstFrame.pixels)
        let plain = try HEICCodecTests.decode("thumb", minimum: minimum)
        #expect(kept.firstFrame.pixels == plain.firstFrame.pixels)
    }

    @Test func thumbnailFitRule() {
        let primary = (width: 4032, height: 3024)
        #expect(HEICThumbnailChoice.fits((320, 240), primary: primary, minimum: CGSize(width: 200, height: 150)))
        #expect(!HEICThumbnailChoice.fits((320, 240), primary: primary, minimum: CGSize(width: 321, height: 0)))
        // Another aspect ratio (a square crop, or an unturned thumbnail of a turned photo) never fits.
        #expect(!HEICThumbnailChoice.fits((240, 240), primary: primary, minimum: CGSize(width: 10, height: 10)))
        #expect(!HEICThumbnailChoice.fits((240, 320), primary: primary, minimum: CGSize(width: 10, height: 10)))
        // Not smaller than the primary: nothing gained.
        #expect(!HEICThumbnailChoice.fits(primary, primary: primary, minimum: CGSize(width: 10, height: 10)))
    }

    @Test func sequenceWithAStillDecodesTheStill() throws {
        let still = try HEICCodecTests.decode("stillseq")
        #expect(still.frames.count == 1 && still.pixelWidth == 32 && still.pixelHeight == 24)
    }

    @Test func sequenceWithoutAStillIsAClearError() {
        let trackOnly = Data(BMFF.ftyp("msf1", ["iso8", "hevs"]) + BMFF.sequence(coding: "hvc1", width: 32, height: 16, samples: 5))
        #expect(trackOnly.kf.imageFormat == .HEIC)
        do {
            _ = try KFCrossPlatformImage(data: trackOnly)
            Issue.record("a track-only sequence decoded")
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4103)
            #expect(error.localizedDescription.contains("libheif 1.15 cannot read sequence tracks"))
        } catch {
            Issue.record("not a KingfisherError: \(error)")
        }
    }

    /// Decodes `data`, which must fail with a ``KingfisherError`` or give an image of `size`.
    static func survive(_ data: Data, size: (Int, Int)? = nil, mustFail: Bool, _ what: String,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let image = try KFCrossPlatformImage(data: data)
            if mustFail { Issue.record("\(what) decoded", sourceLocation: sourceLocation) }
            if let size {
                #expect(image.pixelWidth == size.0 && image.pixelHeight == size.1, "\(what)", sourceLocation: sourceLocation)
            }
        } catch is KingfisherError {
        } catch {
            Issue.record("\(what): not a KingfisherError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: ["rgb8", "alpha", "grid", "thumb", "rgb10"])
    func truncatedFilesAreErrors(name: String) throws {
        let data = try Fixtures.data("heic/\(name).heic")
        for fraction in [0.1, 0.5, 0.9] {
            Self.survive(data.prefix(Int(Double(data.count) * fraction)), mustFail: true, "\(name) cut at \(fraction)")
        }
        for length in stride(from: 0, to: data.count, by: 13) {
            Self.survive(data.prefix(length), mustFail: false, "\(name) cut at \(length) bytes")
        }
    }

    /// The offset of the first top-level box `type` in `data`.
    static func boxOffset(_ type: String, in data: Data) -> Int? {
        guard let range = data.range(of: Data(type.utf8)) else { return nil }
        return range.lowerBound - data.startIndex - 4
    }

    @Test(arguments: ["rgb8", "alpha", "grid"])
    func corruptFilesAreErrorsOrImages(name: String) throws {
        let data = try Fixtures.data("heic/\(name).heic")
        let mdat = try #require(Self.boxOffset("mdat", in: data))
        // A fixed xorshift sequence, so every run flips the same bytes.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        for round in 0..<20 {
            var flipped = data
            for _ in 0..<(1 + round) {
                let index = mdat + 8 + next(data.count - mdat - 8)
                flipped[index] ^= UInt8(1 + next(255))
            }
            Self.survive(flipped, mustFail: false, "\(name) with flipped bytes in mdat")
        }
        // Sizes past the end or shorter than the box's own fields, and an unknown iloc version.
        for (box, field, value) in [("ftyp", -4, UInt8(0xFF)), ("meta", -4, 0x7F), ("iloc", -1, 0x05), ("iloc", 4, 0xFF)] {
            var broken = data
            let offset = try #require(Self.boxOffset(box, in: data)) + 4 + field
            broken[offset] = value
            Self.survive(broken, mustFail: true, "\(name) with a broken \(box) (\(field), \(value))")
        }
        // The iloc extents moved past the end of the file.
        var moved = data
        let iloc = try #require(Self.boxOffset("iloc", in: data))
        for index in (iloc + 8)..<min(iloc + 60, mdat) { moved[index] = 0xEE }
        Self.survive(moved, mustFail: true, "\(name) with its iloc overwritten")
    }
}
