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

    /// Decodes `bytes`, recording an issue unless the outcome is allowed; true when it decoded.
    @discardableResult
    private func decodeOrThrow(_ bytes: [UInt8], options: ImageCreatingOptions = ImageCreatingOptions(),
                               expectSize: (Int, Int)? = nil, mustThrow: Bool, _ label: String) -> Bool {
        do {
            let image = try KFCrossPlatformImage(data: Data(bytes), options: options)
            if mustThrow {
                Issue.record("\(label) decoded")
            } else if let expectSize {
                #expect((image.pixelWidth, image.pixelHeight) == expectSize, "\(label)")
            }
            return true
        } catch let error as KingfisherError {
            #expect([4103, 4104, 4101, 4102].contains(error.errorCode), "\(label): \(error)")
        } catch {
            Issue.record("\(label) threw \(error), not a KingfisherError")
        }
        return false
    }

    @Test(arguments: ["still8", "alpha", "still10", "anim", "clap-rot1-mir1"])
    func truncatedFilesThrow(name: String) throws {
        let bytes = [UInt8](try AVIFFixtures.avif(name))
        for percent in [10, 50, 90] {
            let cut = Array(bytes.prefix(bytes.count * percent / 100))
            decodeOrThrow(cut, mustThrow: true, "\(name) cut at \(percent) %")
            // libavif checks every item and sample extent against the data while parsing, so even
            // a lazily decoded sequence fails at once rather than at its first missing frame.
            decodeOrThrow(cut, options: ImageCreatingOptions(preloadAllFrames: false),
                          mustThrow: true, "\(name) cut at \(percent) %, lazily")
        }
        decodeOrThrow(Array(bytes.dropLast()), mustThrow: true, "\(name) without its last byte")
    }

    @Test func aLazySequenceWithADamagedLastFrameFailsOnThatFrameOnly() throws {
        let bytes = [UInt8](try AVIFFixtures.avif("anim"))
        // The samples are stored in order at the end of the file: flip bytes near the end until
        // an eager decode blames the last frame.
        var damaged: [UInt8]?
        for offset in stride(from: bytes.count - 2, to: bytes.count - 300, by: -7) {
            var candidate = bytes
            candidate[offset] ^= 0xFF
            candidate[offset + 1] ^= 0x5A
            do {
                _ = try KFCrossPlatformImage(data: Data(candidate))
            } catch let error as KingfisherError where error.localizedDescription.contains("frame 4 of 4") {
                damaged = candidate
                break
            }
        }
        let variant = try #require(damaged)
        let image = try KFCrossPlatformImage(data: Data(variant), options: ImageCreatingOptions(preloadAllFrames: false))
        let source = try #require(image.frameSource)
        #expect(AVIFFixtures.maxDifference(image.firstFrame, try AVIFFixtures.reference("anim-0")) == 0)
        #expect(throws: KingfisherError.self) { try source.frame(at: 3, maxSize: nil) }
        // The source stays usable: it starts over for an earlier frame.
        let second = try source.frame(at: 1, maxSize: nil)
        #expect(AVIFFixtures.maxDifference(second, try AVIFFixtures.reference("anim-1")) == 0)
    }

    @Test(arguments: ["still8", "alpha", "anim"])
    func flippedBytesInTheMediaData(name: String) throws {
        let bytes = [UInt8](try AVIFFixtures.avif(name))
        let mdat = try #require(box("mdat", in: bytes))
        let payload = (mdat + 8)..<bytes.count
        var failures = 0
        for step in 0..<24 {
            var damaged = bytes
            // Spread over the payload; the first bytes are the sequence/frame headers.
            let offset = payload.lowerBound + (payload.count - 1) * step / 23
            damaged[offset] ^= 0xFF
            damaged[min(offset + 1, bytes.count - 1)] ^= 0x5A
            if !decodeOrThrow(damaged, expectSize: (48, 32), mustThrow: false, "\(name) flipped at \(offset)") {
                failures += 1
            }
        }
        // dav1d notices some of the damage (the rest decodes to wrong but well-formed pixels).
        #expect(failures > 0)
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
