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

    @Test func realGridsStillDecode() throws {
        let data = try Fixtures.data("heic/grid.heic")
        let header = try ImageHeader(data: data)
        let image = try KFCrossPlatformImage(data: data)
        #expect(header.pixelWidth > 0 && image.pixelWidth > 0)
    }
}
