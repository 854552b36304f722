import Foundation
import Testing
@testable import Kingfisher

/// Writes JPEG XL header bits, least significant first.
struct JXLBits {
    var bytes: [UInt8] = [0xFF, 0x0A]
    private var bitCount = 16

    mutating func put(_ value: UInt64, _ count: Int) {
        for index in 0..<count {
            if bitCount % 8 == 0 { bytes.append(0) }
            if value >> UInt64(index) & 1 == 1 { bytes[bitCount / 8] |= 1 << UInt8(bitCount % 8) }
            bitCount += 1
        }
    }

    mutating func bool(_ value: Bool) { put(value ? 1 : 0, 1) }

    /// A non-small size field: selector 3 and 30 bits of `value - 1`.
    mutating func explicit(_ value: Int) { put(3, 2); put(UInt64(value - 1), 30) }

    /// The codestream with a few zero bytes after, as the frame data would follow.
    var codestream: [UInt8] { bytes + [0, 0, 0, 0] }
}

@Suite struct JXLProbeTests {
    static func small(width: Int, height: Int) -> [UInt8] {
        var bits = JXLBits()
        bits.bool(true); bits.put(UInt64(height / 8 - 1), 5); bits.put(0, 3); bits.put(UInt64(width / 8 - 1), 5)
        bits.bool(true) // all_default metadata
        return bits.codestream
    }

    @Test func smallSize() throws {
        let header = try ImageHeader(data: Data(Self.small(width: 64, height: 256)))
        #expect(header.format == .JXL && header.pixelWidth == 64 && header.pixelHeight == 256)
        #expect(header.frameCount == 1 && header.orientation == .up && !header.hasAlpha)
    }

    @Test(arguments: [(1, 600, 600), (2, 600, 720), (3, 600, 800), (4, 600, 900), (5, 603, 1072), (6, 600, 750), (7, 601, 1202)])
    func ratioSizes(ratio: Int, height: Int, width: Int) throws {
        var bits = JXLBits()
        bits.bool(false); bits.put(1, 2); bits.put(UInt64(height - 1), 13); bits.put(UInt64(ratio), 3)
        bits.bool(true)
        let header = try ImageHeader(data: Data(bits.codestream))
        #expect(header.pixelWidth == width && header.pixelHeight == height)
    }

    @Test func explicitSizeOrientationAlphaAndAnimation() throws {
        var bits = JXLBits()
        bits.bool(false); bits.explicit(70_000); bits.put(0, 3); bits.put(0, 2); bits.put(99, 9) // 70000 high, 100 wide
        bits.bool(false) // all_default
        bits.bool(true) // extra_fields
        bits.put(5, 3) // orientation 6
        bits.bool(false); bits.bool(false) // no intrinsic size, no preview
        bits.bool(true); bits.put(0, 2); bits.put(0, 2); bits.put(1, 2); bits.put(3, 3); bits.bool(false) // animation, 3 loops
        bits.bool(false); bits.put(0, 2) // 8-bit integer samples
        bits.bool(true) // modular_16_bit_buffer_sufficient
        bits.put(1, 2) // one extra channel
        bits.bool(true) // all_default: alpha
        let header = try ImageHeader(data: Data(bits.codestream))
        #expect(header.pixelWidth == 100 && header.pixelHeight == 70_000)
        #expect(header.orientation == .right && header.orientedPixelSize.width == 70_000)
        #expect(header.hasAlpha && header.loopCount == 3 && header.frameCount == 1)
    }

    @Test func containerWithJxlcOrJxlpBoxes() throws {
        let signature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        let ftyp = BMFF.box("ftyp", BMFF.code("jxl ") + BMFF.u32(0) + BMFF.code("jxl "))
        let codestream = Self.small(width: 40, height: 16)
        let whole = Data(signature + ftyp + BMFF.box("jxlc", codestream))
        #expect(whole.kf.imageFormat == .JXL)
        var header = try ImageHeader(data: whole)
        #expect(header.pixelWidth == 40 && header.pixelHeight == 16)
        let split = Data(signature + ftyp + BMFF.box("jxlp", BMFF.u32(0) + Array(codestream.prefix(2)))
                         + BMFF.box("jxlp", BMFF.u32(0x8000_0001) + Array(codestream.dropFirst(2)), large: true))
        header = try ImageHeader(data: split)
        #expect(header.pixelWidth == 40 && header.pixelHeight == 16)
        // A truncated last box (64-bit size) still gives the codestream it holds.
        let truncated = Data(signature + ftyp + BMFF.box("jxlp", BMFF.u32(0x8000_0000) + codestream, large: true)).dropLast(2)
        header = try ImageHeader(data: Data(truncated))
        #expect(header.pixelWidth == 40 && header.pixelHeight == 16)
        #expect(throws: KingfisherError.self) { try ImageHeader(data: Data(signature + ftyp)) }
    }

    @Test func truncatedAndOverLimitCodestreams() throws {
        #expect(throws: KingfisherError.self) { try ImageHeader(data: Data([0xFF, 0x0A])) }
        #expect(throws: KingfisherError.self) { try ImageHeader(data: Data([0xFF, 0x0A, 0x00])) }
        for data in [Data(Self.small(width: 8, height: 8)), try Fixtures.data("jxl/container.jxl"), try Fixtures.data("jxl/wide.jxl")] {
            for length in 0..<min(data.count, 400) { _ = try? ImageHeader(data: data.prefix(length)) }
        }
        var bits = JXLBits()
        bits.bool(false); bits.explicit(1 << 30); bits.put(0, 3); bits.explicit(1 << 30); bits.bool(true)
        do {
            _ = try KFCrossPlatformImage(data: Data(bits.codestream))
            Issue.record("a 2^30 × 2^30 JPEG XL was not refused")
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4104)
        }
        // A header with no frame after it: recognised, then refused by libjxl.
        do {
            _ = try KFCrossPlatformImage(data: Data(Self.small(width: 8, height: 8)))
            Issue.record("a JPEG XL header without a frame decoded")
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4103 && error.localizedDescription.contains("JPEG XL"))
        }
    }

    @Test(arguments: [("small", 24, 16, false), ("alpha", 20, 12, true), ("container", 24, 16, false),
                      ("wide", 1001, 333, false), ("ratio", 1200, 900, false)])
    func realFilesMadeByCjxl(name: String, width: Int, height: Int, alpha: Bool) throws {
        let header = try ImageHeader(data: Fixtures.data("jxl/\(name).jxl"))
        #expect(header.format == .JXL && header.pixelWidth == width && header.pixelHeight == height)
        #expect(header.hasAlpha == alpha && header.orientation == .up && header.frameCount == 1)
    }
}
