import Foundation
import Testing
@testable import Kingfisher

/// A 3.7 KB HEIC (found by the decode-heic fuzz target) whose `ispe` says 64×48 while its grid
/// descriptor asks for 5225×29552: libheif allocates what the grid says, 600 MB of RGBA, so the
/// probe must see the grid's size before libheif runs.
@Suite struct HEICGridBombTests {
    @Test func aGridLargerThanItsDeclaredSizeIsRefusedBeforeDecoding() throws {
        let data = try Fixtures.data("heic/grid-bomb.heic")
        let probeError = #expect(throws: KingfisherError.self) { try ImageHeader(data: data) }
        #expect(probeError?.localizedDescription.contains("5225×29552") == true)
        let decodeError = #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: data) }
        #expect(decodeError?.errorCode == 4103)
    }

    /// A 2.8 KB file (also from the fuzz target) in which a grid's tile is a grid whose alpha image
    /// is the first grid: libheif 1.15 waits on itself forever.
    @Test func referencesThatLoopAreRefusedBeforeDecoding() throws {
        let data = try Fixtures.data("heic/reference-loop.heic")
        let probeError = #expect(throws: KingfisherError.self) { try ImageHeader(data: data) }
        #expect(probeError?.localizedDescription.contains("loop") == true)
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: data) }
    }

    /// A 1.5 KB file (from the fuzz target) whose `ispe` sides multiply past `Int.max`: the probe
    /// reports the sides it declares instead of trapping on the overflow, and decoding refuses them.
    @Test func sidesWhoseAreaOverflowsAreReportedNotATrap() throws {
        let data = try Fixtures.data("heic/ispe-area-overflow.heic")
        let header = try ImageHeader(data: data)
        #expect(header.pixelWidth == 4_294_967_295 && header.pixelHeight == 4_294_967_295)
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: data) }
    }

    @Test func realGridsStillDecode() throws {
        let data = try Fixtures.data("heic/grid.heic")
        let header = try ImageHeader(data: data)
        let image = try KFCrossPlatformImage(data: data)
        #expect(header.pixelWidth > 0 && image.pixelWidth > 0)
    }
}

/// An `iloc` whose fields are all zero bytes wide costs nothing per extent, so a small box can
/// claim billions of them; the probe reads such a box in one step per item.
@Suite struct ISOBMFFItemLocationTests {
    @Test func zeroWidthExtentsAreReadAsOne() throws {
        // iloc version 1, all sizes 0, 20,000 items of 65,535 extents each (6 bytes an item).
        var payload: [UInt8] = [1, 0, 0, 0, 0x00, 0x00, 0x4E, 0x20]
        for item in 0..<20_000 {
            payload += [UInt8(item >> 8 & 0xFF), UInt8(item & 0xFF), 0, 0, 0, 0, 0xFF, 0xFF]
        }
        let size = 8 + payload.count
        let box = [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
            + Array("iloc".utf8) + payload
        let location = try box.withUnsafeBytes { bytes in
            let reader = ISOBMFFReader(bytes)
            return try ISOBMFFItemLocation.find(19_999, in: reader.box(at: 0, before: bytes.count), reader: reader)
        }
        #expect(location?.extents.count == 1)
        #expect(location?.constructionMethod == 0)
    }
}
