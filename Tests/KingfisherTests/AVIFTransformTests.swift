import CLibAVIF
import Foundation
import Testing
@testable import Kingfisher

/// The `clap` arithmetic, and files whose `clap` cannot be applied.
@Suite struct AVIFTransformTests {
    private func clap(_ w: (UInt32, UInt32), _ h: (UInt32, UInt32), _ x: (Int32, UInt32), _ y: (Int32, UInt32)) -> avifCleanApertureBox {
        avifCleanApertureBox(widthN: w.0, widthD: w.1, heightN: h.0, heightD: h.1,
                             horizOffN: UInt32(bitPattern: x.0), horizOffD: x.1,
                             vertOffN: UInt32(bitPattern: y.0), vertOffD: y.1)
    }

    @Test func wholePixelAperturesGiveTheirRectangle() throws {
        // What avifenc --crop 6,4,30,20 writes for a 48×32 picture.
        #expect(try AVIFTransform.cleanAperture(clap((30, 1), (20, 1), (-3, 1), (-2, 1)), width: 48, height: 32)
                == .init(x: 6, y: 4, width: 30, height: 20))
        // Centred, no offset; and the same offset as a fraction with a larger denominator.
        #expect(try AVIFTransform.cleanAperture(clap((40, 2), (10, 1), (0, 1), (0, 1)), width: 48, height: 32)
                == .init(x: 14, y: 11, width: 20, height: 10))
        #expect(try AVIFTransform.cleanAperture(clap((30, 1), (20, 1), (-6, 2), (-8, 4)), width: 48, height: 32)
                == .init(x: 6, y: 4, width: 30, height: 20))
        // Odd spare pixels need a half-pixel offset to land on a whole pixel.
        #expect(try AVIFTransform.cleanAperture(clap((47, 1), (32, 1), (1, 2), (0, 1)), width: 48, height: 32)
                == .init(x: 1, y: 0, width: 47, height: 32))
    }

    @Test func invalidAperturesAreRefused() {
        let bad: [avifCleanApertureBox] = [
            clap((30, 0), (20, 1), (0, 1), (0, 1)),              // zero denominator
            clap((30, 1), (20, 1), (0, 0), (0, 1)),
            clap((61, 2), (20, 1), (0, 1), (0, 1)),              // 30.5 pixels wide
            clap((0, 1), (20, 1), (0, 1), (0, 1)),               // empty
            clap((49, 1), (20, 1), (0, 1), (0, 1)),              // wider than the picture
            clap((30, 1), (20, 1), (-10, 1), (0, 1)),            // left edge at -1
            clap((30, 1), (20, 1), (10, 1), (0, 1)),             // right edge past 48
            clap((47, 1), (32, 1), (0, 1), (0, 1)),              // left edge at 0.5
            clap((30, 1), (20, 1), (Int32.max, 1), (0, 1)),
            clap((30, 1), (20, 1), (Int32.min, UInt32.max), (0, 1)),
            clap((UInt32.max, 1), (UInt32.max, 1), (0, 1), (0, 1)),
        ]
        for box in bad {
            #expect(throws: AVIFTransformError.self) { try AVIFTransform.cleanAperture(box, width: 48, height: 32) }
        }
    }

    @Test func aFileWithAnImpossibleApertureIsAnErrorNotACrash() throws {
        let bytes = [UInt8](try AVIFFixtures.avif("clap"))
        let type = Array("clap".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == type })
        let cases: [(Int, [UInt8])] = [
            (4, [0, 0, 0, 100]),            // 100 pixels wide, in a 48-pixel picture
            (8, [0, 0, 0, 0]),              // width denominator 0
            (20, [0x7F, 0xFF, 0xFF, 0xFF]), // horizontal offset far outside
        ]
        for (offset, replacement) in cases {
            var damaged = bytes
            damaged.replaceSubrange((at + offset)..<(at + offset + 4), with: replacement)
            do {
                _ = try KFCrossPlatformImage(data: Data(damaged))
                Issue.record("a clap patched at +\(offset) decoded")
            } catch let error as KingfisherError {
                #expect(error.errorCode == 4103)
            }
        }
    }
}
