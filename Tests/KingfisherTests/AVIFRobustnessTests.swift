import Foundation
import Testing
@testable import Kingfisher

/// Damaged AVIF files: every variant ends in a thrown ``KingfisherError`` or, where the damage
/// leaves a decodable AV1 stream (a flipped byte inside the coded picture), in an image of the
/// declared size; never a crash or a hang.
@Suite struct AVIFRobustnessTests {
    /// The offset of the first box of `type` (its size field), found by scanning.
    private func box(_ type: String, in bytes: [UInt8]) -> Int? {
        let code = Array(type.utf8)
        return (4..<max(4, bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == code }.map { $0 - 4 }
    }

    private func decodeOrThrow(_ bytes: [UInt8], options: ImageCreatingOptions = ImageCreatingOptions(),
                               expectSize: (Int, Int)? = nil, mustThrow: Bool, _ label: String) {
        do {
            let image = try KFCrossPlatformImage(data: Data(bytes), options: options)
            if mustThrow {
                Issue.record("\(label) decoded")
            } else if let expectSize {
                #expect((image.pixelWidth, image.pixelHeight) == expectSize, "\(label)")
            }
        } catch let error as KingfisherError {
            #expect([4103, 4104, 4101, 4102].contains(error.errorCode), "\(label): \(error)")
        } catch {
            Issue.record("\(label) threw \(error), not a KingfisherError")
        }
    }

    @Test(arguments: ["still8", "alpha", "still10", "anim", "clap-rot1-mir1"])
    func truncatedFilesThrow(name: String) throws {
        let bytes = [UInt8](try AVIFFixtures.avif(name))
        for percent in [10, 50, 90] {
            let cut = Array(bytes.prefix(bytes.count * percent / 100))
            decodeOrThrow(cut, mustThrow: true, "\(name) cut at \(percent) %")
            decodeOrThrow(cut, options: ImageCreatingOptions(preloadAllFrames: false),
                          mustThrow: name != "anim" || percent < 50, "\(name) cut at \(percent) %, lazily")
        }
        decodeOrThrow(Array(bytes.dropLast()), mustThrow: true, "\(name) without its last byte")
    }

    @Test func aLazySequenceCutShortFailsOnTheMissingFrame() throws {
        let bytes = [UInt8](try AVIFFixtures.avif("anim"))
        // The samples are stored in order at the end: the last frame's bytes are the file's last.
        let cut = Data(bytes.dropLast(8))
        do {
            let image = try KFCrossPlatformImage(data: cut, options: ImageCreatingOptions(preloadAllFrames: false))
            let source = try #require(image.frameSource)
            #expect(throws: KingfisherError.self) { try source.frame(at: 3, maxSize: nil) }
            // The source stays usable: an earlier frame decodes again afterwards.
            #expect(try source.frame(at: 1, maxSize: nil).width == 48)
        } catch let error as KingfisherError {
            #expect(error.errorCode == 4103)
        }
    }

    @Test(arguments: ["still8", "alpha", "anim"])
    func flippedBytesInTheMediaData(name: String) throws {
        let bytes = [UInt8](try AVIFFixtures.avif(name))
        let mdat = try #require(box("mdat", in: bytes))
        let payload = (mdat + 8)..<bytes.count
        for step in 0..<24 {
            var damaged = bytes
            // Spread over the payload; the first bytes are the sequence/frame headers.
            let offset = payload.lowerBound + (payload.count - 1) * step / 23
            damaged[offset] ^= 0xFF
            damaged[min(offset + 1, bytes.count - 1)] ^= 0x5A
            decodeOrThrow(damaged, expectSize: (48, 32), mustThrow: false, "\(name) flipped at \(offset)")
        }
        var zeroed = bytes
        for offset in payload { zeroed[offset] = 0 }
        decodeOrThrow(zeroed, expectSize: (48, 32), mustThrow: false, "\(name) with a zeroed mdat")
    }

    @Test func brokenFileTypeAndMetaBoxes() throws {
        let bytes = [UInt8](try AVIFFixtures.avif("still8"))
        let meta = try #require(box("meta", in: bytes))
        var variants: [(String, [UInt8])] = []
        var ftypSize = bytes
        ftypSize.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0xF0])
        variants.append(("ftyp size past the end", ftypSize))
        var metaSize = bytes
        metaSize.replaceSubrange(meta..<(meta + 4), with: [0, 0, 0, 9])
        variants.append(("meta of 9 bytes", metaSize))
        var metaHuge = bytes
        metaHuge.replaceSubrange(meta..<(meta + 4), with: [0x7F, 0xFF, 0xFF, 0xFF])
        variants.append(("meta past the end", metaHuge))
        for name in ["pitm", "iloc", "iinf", "ipma", "ispe", "av1C"] {
            guard let at = box(name, in: bytes) else { continue }
            var damaged = bytes
            damaged.replaceSubrange(at..<(at + 4), with: [0, 0, 0, 3])
            variants.append(("\(name) of 3 bytes", damaged))
            var renamed = bytes
            renamed[at + 4] ^= 0x20
            variants.append(("\(name) renamed", renamed))
        }
        #expect(variants.count >= 10)
        for (label, damaged) in variants {
            decodeOrThrow(damaged, mustThrow: !label.hasSuffix("renamed"), label)
        }
        decodeOrThrow(Array(bytes.prefix(12)), mustThrow: true, "ftyp alone")
        decodeOrThrow([], mustThrow: true, "nothing")
    }
}
