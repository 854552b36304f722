import Foundation
import Testing
@testable import Kingfisher

/// The AVIF fixtures (made by `Fixtures/avif/make-fixtures.sh` with Debian's avifenc 0.11.1) and
/// their reference decodings (avifdec's output, transformed where the file carries clap/irot/imir).
enum AVIFFixtures {
    /// The bytes of `avif/<name>.avif`.
    static func avif(_ name: String) throws -> Data { try Fixtures.data("avif/\(name).avif") }

    /// The reference for `name`, premultiplied by the PNG decoder as every decoded frame is.
    static func reference(_ name: String) throws -> ImageFrame {
        try KFCrossPlatformImage(data: Fixtures.data("avif/\(name).png")).firstFrame
    }

    /// The largest difference between any two corresponding bytes; `Int.max` when sizes differ.
    static func maxDifference(_ a: ImageFrame, _ b: ImageFrame) -> Int {
        guard a.width == b.width, a.height == b.height else { return Int.max }
        return zip(a.pixels, b.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// The straight colour of `frame` at (`x`, `y`) when opaque.
    static func rgb(_ frame: ImageFrame, _ x: Int, _ y: Int) -> [UInt8] {
        guard let p = frame.pixel(x: x, y: y) else { return [] }
        return [p.r, p.g, p.b]
    }

    /// True when `rgb` is within 12 of `expected` in every channel (the corners are flat colours,
    /// lossy but close).
    static func near(_ rgb: [UInt8], _ expected: [UInt8]) -> Bool {
        rgb.count == 3 && zip(rgb, expected).allSatisfy { abs(Int($0) - Int($1)) <= 12 }
    }

    static let red: [UInt8] = [250, 30, 30]
    static let green: [UInt8] = [30, 250, 30]
    static let blue: [UInt8] = [30, 30, 250]
}

/// Still AVIF decoding held to avifdec, pixel by pixel.
///
/// Tolerance 0: our decoder and avifdec both have libavif convert YUV to 8-bit RGB with the same
/// defaults, and the PNG decoder premultiplies the reference exactly as the AVIF decoder
/// premultiplies its output, so the bytes agree exactly. Two exceptions:
/// - 10-bit 4:2:0 allows 2. avifdec writes an opaque image as 3-channel RGB, for which libavif 0.11
///   has no libyuv path from 10-bit YUV and uses its own floating-point conversion; our RGBA output
///   takes libyuv's fixed-point I010-to-ABGR path. (With `avoidLibYUV` set the two agree exactly,
///   and then the 8-bit files, where avifdec does use libyuv, differ by up to 2 instead.)
/// - The ICC-tagged file allows 1, for the sRGB-to-sRGB round trip colour management may make.
@Suite struct AVIFCodecTests {
    @Test(arguments: ["still8", "still10", "still12"])
    func everyBitDepthDecodesToTheSameBytesAsAvifdec(name: String) throws {
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif(name))
        #expect(image.pixelWidth == 48 && image.pixelHeight == 32 && image.isOpaque && !image.isAnimated)
        let tolerance = name == "still10" ? 2 : 0
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference(name)) <= tolerance)
        #expect(AVIFFixtures.near(AVIFFixtures.rgb(image.firstFrame, 0, 0), AVIFFixtures.red))
    }

    @Test func alphaIsKeptAndPremultiplied() throws {
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("alpha"))
        #expect(!image.isOpaque)
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference("alpha")) == 0)
        // Bottom left is fully transparent in the source: premultiplied, nothing is left.
        #expect(image.firstFrame.pixel(x: 2, y: 30) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        let header = try ImageHeader(data: AVIFFixtures.avif("alpha"))
        #expect(header.hasAlpha)
    }

    @Test func colourProfileIsReadFromTheImage() throws {
        let tagged = try AVIFDecodingSession(data: AVIFFixtures.avif("icc"), options: ImageCreatingOptions())
        guard case .icc(let profile)? = tagged.profile else {
            Issue.record("no ICC profile: \(String(describing: tagged.profile))")
            return
        }
        #expect(profile.count == 588 && profile.subdata(in: 36..<40) == Data("acsp".utf8))
        let plain = try AVIFDecodingSession(data: AVIFFixtures.avif("still8"), options: ImageCreatingOptions())
        #expect(plain.profile == .cicp(colorPrimaries: 1, transferCharacteristics: 13))
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("icc"))
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference("icc")) <= 1)
    }

    /// Every irot (0-3) with no imir, imir 0 and imir 1, as avifenc writes them.
    @Test(arguments: [0, 1, 2, 3], [nil, 0, 1] as [Int?])
    func everyRotationAndMirrorIsAppliedOnce(turns: Int, mirror: Int?) throws {
        let name = "rot\(turns)" + (mirror.map { "-mir\($0)" } ?? "")
        let data = try AVIFFixtures.avif(name)
        let image = try KFCrossPlatformImage(data: data)
        let frame = image.firstFrame
        #expect(AVIFFixtures.maxDifference(frame, try AVIFFixtures.reference(name)) == 0)
        #expect((frame.width, frame.height) == (turns % 2 == 0 ? (48, 32) : (32, 48)))

        // The probe's orientation, applied to the untransformed picture, gives the same pixels:
        // the transform happened exactly once, the way the header describes it.
        let header = try ImageHeader(data: data)
        let plain = try KFCrossPlatformImage(data: AVIFFixtures.avif("rot0")).firstFrame
        #expect(header.orientation.apply(to: plain) == frame)
        #expect(header.orientedPixelSize == (frame.width, frame.height))
    }

    @Test func cornersLandWhereTheStandardSays() throws {
        typealias F = AVIFFixtures
        let corners = { (name: String) throws -> ImageFrame in
            try KFCrossPlatformImage(data: F.avif(name)).firstFrame
        }
        // irot 1 turns a quarter anticlockwise: the top right (green) comes to the top left and
        // the top left (red) to the bottom left.
        let turned = try corners("rot1")
        #expect(F.near(F.rgb(turned, 1, 1), F.green) && F.near(F.rgb(turned, 1, 46), F.red))
        // imir 0 exchanges top and bottom: the bottom left (blue) comes to the top left.
        let flipped = try corners("rot0-mir0")
        #expect(F.near(F.rgb(flipped, 1, 1), F.blue) && F.near(F.rgb(flipped, 1, 30), F.red))
        // imir 1 exchanges left and right: red goes to the top right.
        let mirrored = try corners("rot0-mir1")
        #expect(F.near(F.rgb(mirrored, 1, 1), F.green) && F.near(F.rgb(mirrored, 46, 1), F.red))
        // irot 1 then imir 0 is a transpose: red stays at the top left, green goes to the bottom left.
        let transposed = try corners("rot1-mir0")
        #expect(F.near(F.rgb(transposed, 1, 1), F.red) && F.near(F.rgb(transposed, 1, 46), F.green))
    }

    @Test func cleanApertureCropsBeforeTurning() throws {
        let cropped = try KFCrossPlatformImage(data: AVIFFixtures.avif("clap")).firstFrame
        #expect(cropped.width == 30 && cropped.height == 20)
        #expect(AVIFFixtures.maxDifference(cropped, try AVIFFixtures.reference("clap")) == 0)
        let all = try KFCrossPlatformImage(data: AVIFFixtures.avif("clap-rot1-mir1")).firstFrame
        #expect(all.width == 20 && all.height == 30)
        #expect(AVIFFixtures.maxDifference(all, try AVIFFixtures.reference("clap-rot1-mir1")) == 0)
        // The probe reports the aperture's size, as coded (before the quarter turn).
        let header = try ImageHeader(data: AVIFFixtures.avif("clap-rot1-mir1"))
        #expect(header.pixelWidth == 30 && header.pixelHeight == 20 && header.orientation == .rightMirrored)
    }

    @Test func aFileWithoutPixiDecodesAsBrowsersDo() throws {
        var bytes = [UInt8](try AVIFFixtures.avif("still8"))
        let code = Array("pixi".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == code })
        bytes[at + 3] = UInt8(ascii: "x")  // an unknown property now; libavif's strict mode would refuse the file
        let image = try KFCrossPlatformImage(data: Data(bytes))
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference("still8")) == 0)
    }

    @Test func minimumPixelSizeStillDecodesAtFullSize() throws {
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("still8"),
                                             options: ImageCreatingOptions(scale: 2, minimumPixelSize: CGSize(width: 8, height: 8)))
        #expect(image.pixelWidth == 48 && image.pixelHeight == 32 && image.size == CGSize(width: 24, height: 16))
    }

    @Test func frameLimitIsCheckedBeforeDecoding() throws {
        let options = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 48 * 32 - 1))
        do {
            _ = try KFCrossPlatformImage(data: AVIFFixtures.avif("still8"), options: options)
            Issue.record("an over-limit AVIF decoded")
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4104)
        }
        let exact = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 48 * 32))
        let image = try KFCrossPlatformImage(data: AVIFFixtures.avif("still8"), options: exact)
        #expect(image.pixelWidth == 48)
    }
}
