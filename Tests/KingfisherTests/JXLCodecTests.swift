import Foundation
import Testing
@testable import Kingfisher

/// JPEG XL decoding and encoding over libjxl, against files made by Debian's cjxl 0.7 and the
/// references djxl 0.7 decoded from them (`Fixtures/jxl/make-fixtures.sh`).
///
/// Tolerance: none against djxl. djxl and Kingfisher run the same libjxl into 8-bit RGBA, those
/// fixtures are in sRGB (so no colour conversion runs), and the references (straight alpha) go
/// through the same premultiplication as the decoder's output, so every byte must agree. The
/// Display P3 files are compared with an lcms2 conversion instead (see their test).
@Suite struct JXLCodecTests {
    /// `name` decoded by Kingfisher's PNG decoder: the reference, premultiplied as decoders return.
    static func reference(_ name: String) throws -> ImageFrame {
        try KFCrossPlatformImage(data: Fixtures.data("jxl/\(name)")).firstFrame
    }

    /// The largest difference of any byte, and where; `nil` when the sizes differ.
    static func maxDifference(_ a: ImageFrame, _ b: ImageFrame) -> Int? {
        guard a.width == b.width, a.height == b.height else { return nil }
        return zip(a.pixels, b.pixels).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    @Test(arguments: [
        ("lossy", 40, 28, false), ("lossless", 40, 28, false), ("alpha-lossy", 40, 28, true),
        ("alpha-lossless", 40, 28, true), ("orientation6", 32, 48, false),
        ("16bit", 40, 28, false), ("gray16", 40, 28, false), ("container", 40, 28, false),
    ])
    func stillImagesMatchDjxl(name: String, width: Int, height: Int, alpha: Bool) throws {
        let image = try KFCrossPlatformImage(data: Fixtures.data("jxl/decode-\(name).jxl"))
        #expect(image.frames.count == 1 && image.pixelWidth == width && image.pixelHeight == height)
        #expect(image.isOpaque == !alpha)
        let difference = try #require(Self.maxDifference(image.firstFrame, Self.reference("decode-\(name).png")))
        #expect(difference == 0, "\(name) differs from djxl by up to \(difference)")
    }

    @Test func losslessFilesGiveTheirSourcesBack() throws {
        for (file, source) in [("decode-lossless.jxl", "source-photo.png"), ("decode-alpha-lossless.jxl", "source-alpha.png")] {
            let image = try KFCrossPlatformImage(data: Fixtures.data("jxl/\(file)"))
            let expected = try Self.reference(source)
            #expect(image.firstFrame == expected)
        }
    }

    @Test func orientationIsAppliedOnceByLibjxl() throws {
        let data = try Fixtures.data("jxl/decode-orientation6.jxl")
        let header = try ImageHeader(data: data)
        #expect(header.pixelWidth == 48 && header.pixelHeight == 32 && header.orientation == .right)
        #expect(header.orientedPixelSize == (32, 48))
        let image = try KFCrossPlatformImage(data: data)
        #expect(image.pixelWidth == 32 && image.pixelHeight == 48)
    }

    /// cjxl 0.7 drops the loop count of APNG and GIF input (the APNG asked for 3 plays), so both
    /// loop forever; JXLEncoderTests covers other loop counts.
    static let animations: [(name: String, durations: [TimeInterval], loops: Int)] = [
        ("animated", [0.04, 0.12, 0.3, 0.07], 0), ("gif", [0.05, 0.2, 0.09], 0),
    ]

    @Test func animationsMatchDjxlFrameByFrame() throws {
        for animation in Self.animations {
            let data = try Fixtures.data("jxl/decode-\(animation.name).jxl")
            let header = try ImageHeader(data: data)
            #expect(header.frameCount == animation.durations.count && header.loopCount == animation.loops)
            #expect(header.frameDurations.map { ($0 * 1000).rounded() } == animation.durations.map { ($0 * 1000).rounded() })
            let image = try KFCrossPlatformImage(data: data)
            #expect(image.frames.count == animation.durations.count && image.loopCount == animation.loops)
            for (index, frame) in image.frames.enumerated() {
                #expect(abs(frame.duration - animation.durations[index]) < 1e-9)
                let reference = try Self.reference("decode-\(animation.name)-\(index).png")
                #expect(Self.maxDifference(frame, reference) == 0, "\(animation.name) frame \(index)")
            }
        }
    }

    @Test func lazyAnimationDecodesFramesOnDemandInAnyOrder() throws {
        let data = try Fixtures.data("jxl/decode-animated.jxl")
        let image = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        let reference = try Self.reference("decode-animated-0.png")
        #expect(image.frames.count == 1 && image.loopCount == 0 && image.firstFrame == reference)
        let source = try #require(image.frameSource)
        #expect(source.frameCount == 4 && abs(source.totalDuration - 0.53) < 1e-9)
        for index in [1, 2, 3, 0, 2, 1, 3, 3] {
            let frame = try source.frame(at: index, maxSize: nil)
            let expected = try Self.reference("decode-animated-\(index).png").withDuration(source.duration(at: index))
            #expect(frame == expected, "lazy frame \(index)")
        }
        let small = try source.frame(at: 2, maxSize: CGSize(width: 16, height: 16))
        #expect(small.width == 16 && small.height == 12)
        #expect(throws: KingfisherError.self) { try source.frame(at: 4, maxSize: nil) }
    }

    @Test func onlyFirstFrameAndLimits() throws {
        let data = try Fixtures.data("jxl/decode-animated.jxl")
        let first = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(onlyFirstFrame: true))
        let reference = try Self.reference("decode-animated-0.png")
        #expect(first.frames.count == 1 && first.firstFrame == reference)
        let cases: [(ImageDecodingLimits, Data)] = [
            (ImageDecodingLimits(maxPixelsPerFrame: 40 * 28 - 1), try Fixtures.data("jxl/decode-lossy.jxl")),
            (ImageDecodingLimits(maxFrameCount: 3), data),
            (ImageDecodingLimits(maxTotalAnimationPixels: 32 * 24 * 2), data),
        ]
        for (limits, input) in cases {
            do {
                _ = try KFCrossPlatformImage(data: input, options: ImageCreatingOptions(limits: limits))
                Issue.record("\(limits) did not stop the decode")
            } catch let error as KingfisherError {
                #expect(error.errorCode == 4104, "\(error)")
            }
        }
    }

    @Test func displayP3IsConvertedToSRGB() throws {
        // Tolerance 2, as in the colour-management tests: Kingfisher's conversion and lcms2's
        // (which made the reference) round differently.
        let reference = try Self.reference("p3-srgb.png")
        let lossless = try KFCrossPlatformImage(data: Fixtures.data("jxl/decode-p3-lossless.jxl"))
        let losslessDifference = try #require(Self.maxDifference(lossless.firstFrame, reference))
        #expect(losslessDifference <= 2, "lossless P3 differs by \(losslessDifference)")
        // Lossy (XYB): libjxl converts to sRGB itself, exactly as djxl does when asked for sRGB.
        let lossy = try KFCrossPlatformImage(data: Fixtures.data("jxl/decode-p3-lossy.jxl"))
        let lossyDifference = try #require(Self.maxDifference(lossy.firstFrame, Self.reference("decode-p3-lossy.png")))
        #expect(lossyDifference == 0, "lossy P3 differs from djxl's sRGB output by \(lossyDifference)")
        // Asked to keep the source's colours, the lossless file gives the P3 values as stored.
        let keep = ImageCreatingOptions(keepsSourceColors: true)
        let kept = try KFCrossPlatformImage(data: Fixtures.data("jxl/decode-p3-lossless.jxl"), options: keep)
        let source = try KFCrossPlatformImage(data: Fixtures.data("color/p3.png"), options: keep)
        #expect(kept.firstFrame == source.firstFrame)
    }

    static let allFixtures = ["lossy", "lossless", "alpha-lossy", "alpha-lossless", "orientation6", "16bit", "gray16",
                              "container", "animated", "gif", "p3-lossless", "p3-lossy"]

    @Test func truncatedFilesAreErrors() throws {
        for name in Self.allFixtures {
            let data = try Fixtures.data("jxl/decode-\(name).jxl")
            for percent in [10, 50, 90] {
                let cut = Data(data.prefix(data.count * percent / 100))
                #expect(throws: KingfisherError.self, "\(name) cut at \(percent) %") { try KFCrossPlatformImage(data: cut) }
                // Lazily, the error may wait for the first damaged frame (the headers of all frames
                // can survive a cut inside the last one).
                #expect(throws: KingfisherError.self, "\(name) cut at \(percent) %, lazily") {
                    let image = try KFCrossPlatformImage(data: cut, options: ImageCreatingOptions(preloadAllFrames: false))
                    if let source = image.frameSource {
                        for index in 0..<source.frameCount { _ = try source.frame(at: index, maxSize: nil) }
                    }
                }
            }
        }
    }

    /// Decodes that fail midway and encodes hand their thread runner back, so a long run of them
    /// (a server, a fuzzer) starts no threads after the first few and leaks no runner.
    @Test func threadRunnersAreReusedAndNeverLeak() throws {
        let data = try Fixtures.data("jxl/decode-\(Self.allFixtures[0]).jxl")
        let cut = Data(data.prefix(data.count * 90 / 100))
        let image = try KFCrossPlatformImage(data: data)
        for _ in 0..<40 {
            #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: cut) }
            _ = try KFCrossPlatformImage(data: data)
            _ = try JXLCodec.encode(image, options: ImageEncodingOptions(jxlEffort: 1))
        }
        // Other tests may hold a runner at this moment; 120 leaked ones would show far above this.
        #expect(JXLThreadPool.liveCount <= JXLThreadPool.maximumIdle + 8)
    }

    @Test func corruptBytesNeverCrash() throws {
        for name in Self.allFixtures {
            let data = try Fixtures.data("jxl/decode-\(name).jxl")
            for position in stride(from: 2, to: data.count, by: max(1, data.count / 40)) {
                for mask in [0xFF, 0x10] as [UInt8] {
                    var broken = data
                    broken[position] ^= mask
                    do {
                        let image = try KFCrossPlatformImage(data: broken)
                        #expect(image.pixelWidth > 0)
                    } catch {
                        #expect(error is KingfisherError, "\(name) byte \(position): \(error)")
                    }
                }
            }
        }
    }

    @Test func brokenContainerBoxesAreErrors() throws {
        let data = try Fixtures.data("jxl/decode-container.jxl")
        let bytes = [UInt8](data)
        let intact = try KFCrossPlatformImage(data: data)
        // The box after the signature and `ftyp`: rewrite its size to impossible values.
        var offset = 0
        var boxes: [Int] = []
        while offset + 8 <= bytes.count {
            boxes.append(offset)
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8 else { break }
            offset += size
        }
        #expect(boxes.count >= 3)
        for box in boxes.dropFirst() {
            for size in [0, 1, 7, 0x7FFF_FFFF, bytes.count - box + 1] as [Int] {
                var broken = bytes
                broken.replaceSubrange(box..<box + 4, with: (0..<4).map { UInt8(truncatingIfNeeded: size >> (24 - 8 * $0)) })
                // The last box holds the whole codestream: size 0 means "to the end of the file"
                // (valid), and a size past the end still leaves libjxl every byte of the
                // codestream, which it decodes; both must give the intact image. Every other
                // variant is an error.
                let lenient = box == boxes.last && (size == 0 || size > bytes.count - box)
                do {
                    let image = try KFCrossPlatformImage(data: Data(broken))
                    #expect(lenient, "box at \(box) with size \(size) decoded")
                    #expect(image.frames.first?.pixels == intact.frames.first?.pixels, "box at \(box) with size \(size)")
                } catch {
                    #expect(!lenient || size != 0, "box at \(box) with size 0 (to the end) refused: \(error)")
                    #expect(error is KingfisherError)
                }
            }
            var renamed = bytes
            renamed.replaceSubrange(box + 4..<box + 8, with: Array("jxlp".utf8))
            #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: Data(renamed)) }
        }
    }
}
