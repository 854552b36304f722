import Foundation
import Testing
@testable import Kingfisher

/// Builds ISO-BMFF boxes for the probe tests.
enum BMFF {
    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
    static func u64(_ value: Int) -> [UInt8] { [56, 48, 40, 32, 24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
    static func code(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A box with a 32-bit size, or with size 1 and a 64-bit size when `large`.
    static func box(_ type: String, _ payload: [UInt8], large: Bool = false) -> [UInt8] {
        large ? u32(1) + code(type) + u64(16 + payload.count) + payload : u32(8 + payload.count) + code(type) + payload
    }

    static func fullBox(_ type: String, version: UInt8 = 0, flags: Int = 0, _ payload: [UInt8], large: Bool = false) -> [UInt8] {
        box(type, [version, UInt8(flags >> 16 & 0xFF), UInt8(flags >> 8 & 0xFF), UInt8(flags & 0xFF)] + payload, large: large)
    }

    static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        box("ftyp", code(major) + u32(0) + compatible.flatMap(code))
    }

    static func ispe(_ width: Int, _ height: Int) -> [UInt8] { fullBox("ispe", u32(width) + u32(height)) }
    static func irot(_ turns: UInt8) -> [UInt8] { box("irot", [turns]) }
    static func imir(_ mode: UInt8) -> [UInt8] { box("imir", [mode]) }

    /// A `meta` box: `items` (ID, type), `properties` in `ipco`, and each item's 1-based property
    /// indices.
    static func meta(primary: Int, items: [(Int, String)], properties: [[UInt8]], associations: [(Int, [Int])],
                     large: Bool = false) -> [UInt8] {
        let hdlr = fullBox("hdlr", u32(0) + code("pict") + [UInt8](repeating: 0, count: 13))
        let pitm = fullBox("pitm", u16(primary))
        let infes = items.flatMap { fullBox("infe", version: 2, u16($0.0) + u16(0) + code($0.1) + [0]) }
        let iinf = fullBox("iinf", u16(items.count) + infes)
        let ipco = box("ipco", properties.flatMap { $0 }, large: large)
        let ipma = fullBox("ipma", u32(associations.count) + associations.flatMap { item in
            u16(item.0) + [UInt8(item.1.count)] + item.1.map { UInt8(0x80 | $0) }
        })
        return fullBox("meta", hdlr + pitm + iinf + box("iprp", ipco + ipma, large: large), large: large)
    }

    /// A still image file: `brands` (major first), one `coding` item of `width`×`height` with `extra`
    /// properties, and an `mdat`.
    static func still(_ brands: [String], coding: String = "av01", width: Int = 640, height: Int = 480,
                      extra: [[UInt8]] = [], large: Bool = false) -> Data {
        let properties = [ispe(width, height)] + extra
        let meta = meta(primary: 1, items: [(1, coding)], properties: properties,
                        associations: [(1, Array(1...properties.count))], large: large)
        return Data(ftyp(brands[0], Array(brands.dropFirst())) + meta + box("mdat", [1, 2, 3, 4]))
    }

    /// A `moov` with one picture track of `samples` samples coded as `coding`.
    static func sequence(coding: String, width: Int, height: Int, samples: Int) -> [UInt8] {
        let hdlr = fullBox("hdlr", u32(0) + code("pict") + [UInt8](repeating: 0, count: 13))
        let entry = box(coding, [UInt8](repeating: 0, count: 6) + u16(1) + [UInt8](repeating: 0, count: 16)
                        + u16(width) + u16(height) + [UInt8](repeating: 0, count: 50))
        let stsd = fullBox("stsd", u32(1) + entry)
        let stsz = fullBox("stsz", u32(0) + u32(samples) + [UInt8](repeating: 0, count: 4 * samples))
        let stbl = box("stbl", stsd + stsz)
        return box("moov", box("trak", box("mdia", hdlr + box("minf", stbl))))
    }
}

@Suite struct ISOBMFFProbeTests {
    @Test func avifStillReportsItsSize() throws {
        let header = try ImageHeader(data: BMFF.still(["avif", "mif1", "miaf"]))
        #expect(header.format == .AVIF)
        #expect(header.pixelWidth == 640 && header.pixelHeight == 480)
        #expect(header.frameCount == 1 && header.orientation == .up && !header.hasAlpha)
    }

    @Test func heicStillReportsItsSize() throws {
        let header = try ImageHeader(data: BMFF.still(["heic", "mif1"], coding: "hvc1", width: 4032, height: 3024))
        #expect(header.format == .HEIC)
        #expect(header.pixelWidth == 4032 && header.pixelHeight == 3024)
    }

    @Test(arguments: [
        ("avif", ImageFormat.AVIF), ("avis", .AVIF), ("heic", .HEIC), ("heix", .HEIC), ("hevc", .HEIC),
        ("heim", .HEIC), ("heis", .HEIC), ("hevm", .HEIC), ("hevs", .HEIC),
    ])
    func majorBrandNamesTheFormat(brand: String, format: ImageFormat) {
        #expect(Data(BMFF.ftyp(brand, ["mif1"])).kf.imageFormat == format)
    }

    @Test func neutralBrandFollowsThePrimaryItem() {
        #expect(BMFF.still(["mif1", "miaf"], coding: "av01").kf.imageFormat == .AVIF)
        #expect(BMFF.still(["mif1", "miaf"], coding: "hvc1").kf.imageFormat == .HEIC)
        #expect(BMFF.still(["msf1", "mif1"], coding: "hvc1").kf.imageFormat == .HEIC)
        // No readable meta: the compatible brands decide; none of ours: unknown.
        #expect(Data(BMFF.ftyp("mif1", ["avif"])).kf.imageFormat == .AVIF)
        #expect(Data(BMFF.ftyp("mif1", ["heic"])).kf.imageFormat == .HEIC)
        #expect(Data(BMFF.ftyp("mif1", [])).kf.imageFormat == .unknown)
        #expect(Data(BMFF.ftyp("isom", ["mp41"])).kf.imageFormat == .unknown)
    }

    @Test(arguments: [
        (0, nil, ImageOrientation.up), (1, nil, .left), (2, nil, .down), (3, nil, .right),
        (0, 1, .upMirrored), (0, 0, .downMirrored), (1, 1, .rightMirrored), (1, 0, .leftMirrored),
        (2, 1, .downMirrored), (2, 0, .upMirrored), (3, 1, .leftMirrored), (3, 0, .rightMirrored),
    ] as [(Int, Int?, ImageOrientation)])
    func rotationAndMirrorMapToOrientation(turns: Int, mirror: Int?, expected: ImageOrientation) throws {
        var extra = [BMFF.irot(UInt8(turns))]
        if let mirror { extra.append(BMFF.imir(UInt8(mirror))) }
        let header = try ImageHeader(data: BMFF.still(["avif"], width: 300, height: 200, extra: extra))
        #expect(header.orientation == expected)
        #expect(header.pixelWidth == 300 && header.pixelHeight == 200)
        let upright = header.orientedPixelSize
        #expect(turns % 2 == 1 ? (upright.width == 200 && upright.height == 300) : (upright.width == 300 && upright.height == 200))
    }

    @Test func sixtyFourBitAndToTheEndSizesAreRead() throws {
        var bytes = [UInt8](BMFF.still(["heic"], coding: "hvc1", width: 80, height: 60, large: true))
        // A last box of size 0 runs to the end of the data.
        bytes += BMFF.u32(0) + BMFF.code("mdat") + [9, 9, 9]
        let header = try ImageHeader(data: Data(bytes))
        #expect(header.format == .HEIC && header.pixelWidth == 80 && header.pixelHeight == 60)
    }

    @Test func gridReportsItsOutputSize() throws {
        let meta = BMFF.meta(primary: 3, items: [(1, "hvc1"), (2, "hvc1"), (3, "grid")],
                             properties: [BMFF.ispe(512, 512), BMFF.ispe(1024, 512), BMFF.irot(3)],
                             associations: [(1, [1]), (2, [1]), (3, [2, 3])])
        let data = Data(BMFF.ftyp("mif1", ["heic"]) + meta)
        #expect(data.kf.imageFormat == .HEIC)
        let header = try ImageHeader(data: data)
        #expect(header.pixelWidth == 1024 && header.pixelHeight == 512 && header.orientation == .right)
    }

    @Test func cleanApertureAndAlphaAreReported() throws {
        let clap = BMFF.box("clap", BMFF.u32(600) + BMFF.u32(1) + BMFF.u32(400) + BMFF.u32(1) + [UInt8](repeating: 0, count: 16))
        let alpha = BMFF.fullBox("auxC", BMFF.code("urn:mpeg:mpegB:cicp:systems:auxiliary:alpha") + [0])
        let header = try ImageHeader(data: BMFF.still(["avif"], extra: [clap, alpha]))
        #expect(header.pixelWidth == 600 && header.pixelHeight == 400 && header.hasAlpha)
    }

    @Test func sequenceReportsItsFrames() throws {
        let withMeta = Data([UInt8](BMFF.still(["avis", "avif", "msf1"], width: 64, height: 48))
                            + BMFF.sequence(coding: "av01", width: 64, height: 48, samples: 12))
        let header = try ImageHeader(data: withMeta)
        #expect(header.format == .AVIF && header.frameCount == 12 && header.pixelWidth == 64)
        let trackOnly = Data(BMFF.ftyp("msf1", ["iso8"]) + BMFF.sequence(coding: "hvc1", width: 32, height: 16, samples: 5))
        #expect(trackOnly.kf.imageFormat == .HEIC)
        let fromTrack = try ImageHeader(data: trackOnly)
        #expect(fromTrack.frameCount == 5 && fromTrack.pixelWidth == 32 && fromTrack.pixelHeight == 16)
    }

    @Test func everyTruncationIsAnErrorNotACrash() throws {
        for data in [BMFF.still(["avif"], extra: [BMFF.irot(1)]), try Fixtures.data("heif/small.heic"),
                     try Fixtures.data("heif/seq.avif")] {
            for length in 0..<min(data.count, 700) {
                // Either an error or a header read from what is there; never a trap.
                _ = try? ImageHeader(data: data.prefix(length))
            }
        }
        let full = BMFF.still(["avif"])
        #expect(throws: KingfisherError.self) { try ImageHeader(data: full.prefix(40)) }
    }

    @Test func hostileBoxesAreErrors() {
        func expectFailure(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(throws: KingfisherError.self, sourceLocation: sourceLocation) { try ImageHeader(data: data) }
        }
        // No ispe on the primary item.
        expectFailure(Data(BMFF.ftyp("avif", []) + BMFF.meta(primary: 1, items: [(1, "av01")], properties: [BMFF.irot(1)],
                                                               associations: [(1, [1])])))
        // A meta box claiming more bytes than there are.
        var bytes = BMFF.ftyp("avif", []) + BMFF.u32(0x7FFF_FFFF) + BMFF.code("meta") + [0, 0, 0, 0]
        expectFailure(Data(bytes))
        // A meta box of 9 bytes: too short for its version and flags (its children would start
        // past its end), and an iinf too short for its entry count.
        bytes = BMFF.ftyp("avif", []) + BMFF.u32(9) + BMFF.code("meta") + [0]
        expectFailure(Data(bytes))
        expectFailure(Data(BMFF.ftyp("avif", []) + BMFF.fullBox("meta", BMFF.u32(9) + BMFF.code("iinf") + [0])))
        // A box shorter than its own header, and a 64-bit size past Int.max.
        bytes = BMFF.ftyp("avif", []) + BMFF.u32(4) + BMFF.code("meta")
        expectFailure(Data(bytes))
        bytes = BMFF.ftyp("avif", []) + BMFF.u32(1) + BMFF.code("meta") + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        expectFailure(Data(bytes))
        // An ipma promising four billion entries.
        let ipma = BMFF.fullBox("ipma", BMFF.u32(0xFFFF_FFFF) + BMFF.u16(1) + [1, 0x81])
        let meta = BMFF.fullBox("meta", BMFF.fullBox("pitm", BMFF.u16(1)) + BMFF.box("iprp", BMFF.box("ipco", BMFF.ispe(1, 1)) + ipma))
        expectFailure(Data(BMFF.ftyp("avif", []) + meta))
    }

    @Test func decodingIsRefusedClearlyAndLimitsApplyFirst() throws {
        do {
            _ = try KFCrossPlatformImage(data: BMFF.still(["avif"]))
            Issue.record("an AVIF without any AV1 data decoded")
        } catch let error as KingfisherError {
            // The header parses, but libavif finds no coded picture to decode.
            #expect(error.errorCode == 4103)
            #expect(error.localizedDescription.contains("AVIF"))
        }
        do {
            _ = try KFCrossPlatformImage(data: BMFF.still(["heic"], coding: "hvc1", width: 100_000, height: 100_000))
            Issue.record("a huge HEIC was not refused")
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4104)
        }
        let image = KFCrossPlatformImage(frame: try #require(ImageFrame(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 16))))
        let avif = try image.encoded(as: .AVIF)
        #expect(avif.kf.imageFormat == .AVIF)
        #expect(throws: KingfisherError.self) { try image.encoded(as: .HEIC) }
    }

    @Test func processedImagesOfSuchOriginalsAreCachedInAFormatKingfisherWrites() throws {
        let image = KFCrossPlatformImage(frame: try #require(ImageFrame(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 16))))
        #expect(DefaultCacheSerializer.format(for: image, original: BMFF.still(["avif"])) == .AVIF)
        #expect(DefaultCacheSerializer.format(for: image, original: try Fixtures.data("jxl/small.jxl")) == .JXL)
        // HEIC is not written: an opaque image goes to JPEG (FormatPipelineTests covers the rest).
        let data = try #require(DefaultCacheSerializer.default.data(with: image, original: BMFF.still(["heic"], coding: "hvc1")))
        #expect(data.kf.imageFormat == .JPEG)
    }

    @Test func extensionsAndNames() {
        #expect(ImageFormat(fileExtension: "AVIF") == .AVIF)
        #expect(ImageFormat(fileExtension: "heif") == .HEIC && ImageFormat(fileExtension: "heic") == .HEIC)
        #expect(ImageFormat(fileExtension: "jxl") == .JXL)
        #expect(ImageFormat.AVIF.fileExtension == "avif" && ImageFormat.HEIC.fileExtension == "heic")
        #expect(ImageFormat.JXL.fileExtension == "jxl" && ImageFormat.JXL.description == "JPEG XL")
    }

    @Test func realFilesMadeByLibavifAndLibheif() throws {
        let small = try ImageHeader(data: Fixtures.data("heif/small.avif"))
        #expect(small.format == .AVIF && small.pixelWidth == 24 && small.pixelHeight == 16 && small.orientation == .up)
        // avifenc --irot 1 --imir 0: a quarter turn anticlockwise, then top and bottom swapped.
        let turned = try ImageHeader(data: Fixtures.data("heif/rot.avif"))
        #expect(turned.orientation == .leftMirrored && turned.orientedPixelSize.width == 16)
        #expect(try ImageHeader(data: Fixtures.data("heif/alpha.avif")).hasAlpha)
        let sequence = try ImageHeader(data: Fixtures.data("heif/seq.avif"))
        #expect(sequence.format == .AVIF && sequence.frameCount == 3 && sequence.pixelWidth == 24)
        // heif-enc writes a grid of one tile.
        let heic = try ImageHeader(data: Fixtures.data("heif/small.heic"))
        #expect(heic.format == .HEIC && heic.pixelWidth == 24 && heic.pixelHeight == 16)
    }
}
