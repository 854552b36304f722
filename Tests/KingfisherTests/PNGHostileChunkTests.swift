import Foundation
import Testing
@testable import Kingfisher

/// PNGs found by `scripts/fuzz.sh decode-png` (issue 19).
@Suite struct PNGHostileChunkTests {
    /// 97 bytes whose second chunk, `sPLT`, claims 1,560,281,089 bytes: libpng allocated (and
    /// cleared) 1.5 GB for it before finding that the data ends, taking over 20 s per decode.
    static let overlongSPLT: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08, 0x08, 0x02, 0x00, 0x00, 0x00, 0x4B, 0x6D, 0x29,
        0xDC, 0x5D, 0x00, 0x00, 0x01, 0x73, 0x50, 0x4C, 0x54, 0x45, 0x52, 0x47, 0x42, 0x00, 0xAE, 0xCE,
        0x1C, 0xE9, 0x00, 0x00, 0x00, 0x17, 0x49, 0x44, 0x41, 0x54, 0x08, 0x99, 0x63, 0x64, 0x60, 0x60,
        0xD0, 0xC0, 0x86, 0x58, 0x18, 0x8C, 0x18, 0xB0, 0x82, 0xC1, 0x29, 0x01, 0x00, 0x5F, 0x13, 0x02,
        0x94, 0xA5, 0x6E, 0xAF, 0x5E, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60,
        0x82,
    ]

    static func decodingFailure(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let KingfisherError.processorError(reason: .decodingFailed(format, description)) {
            return format == .PNG ? description : "not PNG: \(format)"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func aChunkLongerThanTheDataIsRefusedBeforeLibpngAllocatesIt() {
        let data = Data(Self.overlongSPLT)
        let decode = Self.decodingFailure { _ = try KFCrossPlatformImage(data: data) }
        #expect(decode?.contains("sPLT chunk claims 1560281089 bytes") == true, "\(decode ?? "decoded")")
        let probe = Self.decodingFailure { _ = try ImageHeader(data: data) }
        #expect(probe?.contains("sPLT chunk claims") == true, "\(probe ?? "probed")")
    }

    @Test func theLayoutWalkAcceptsWholeFilesAndLeavesAShortIDATToLibpng() throws {
        let frame = try #require(ImageFrame(width: 3, height: 2, pixels: [UInt8](repeating: 255, count: 24)))
        let png = try KFCrossPlatformImage(frame: frame).encoded(as: .PNG)
        png.withUnsafeBytes { #expect(PNGChunkLayout.firstOverlongChunk(in: $0) == nil) }
        // Cut inside the last IDAT: not this walk's to report.
        guard let idat = png.range(of: Data("IDAT".utf8)) else {
            Issue.record("no IDAT in an encoded PNG")
            return
        }
        let cut = png.prefix(idat.upperBound - png.startIndex + 2)
        cut.withUnsafeBytes { #expect(PNGChunkLayout.firstOverlongChunk(in: $0) == nil) }
    }
}
