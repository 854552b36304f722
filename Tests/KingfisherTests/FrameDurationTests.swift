import Foundation
import Testing
@testable import Kingfisher

/// Frame durations read from the headers alone, and `kf info --frames`.
@Suite struct FrameDurationTests {
    /// A 4×4 GIF whose frames carry the given delays (centiseconds; `nil`: no Graphics Control
    /// Extension at all).
    static func gif(delays: [Int?]) -> Data {
        let palette = [GIFWriter.Color(r: 255, g: 0, b: 0), .init(r: 0, g: 255, b: 0)]
        var writer = GIFWriter(width: 4, height: 4, globalPalette: palette, loopCount: 0)
        writer.frames = delays.enumerated().map { index, delay in
            .filled(UInt8(index % 2), width: 4, height: 4, control: delay.map { GIFWriter.Control(delay: $0) })
        }
        return writer.data()
    }

    @Test func gifHeaderDurationsMatchTheDecodedFramesAndKingfishersRule() throws {
        let data = Self.gif(delays: [5, 0, 1, nil, 250])
        let header = try ImageHeader(data: data)
        #expect(header.frameDurations == [0.05, 0.1, 0.1, 0.1, 2.5])
        #expect(header.frameDurations == (try KFCrossPlatformImage(data: data)).frames.map(\.duration))
        #expect(try ImageHeader(data: Self.gif(delays: [7])).frameDurations.isEmpty)
    }

    @Test func webpHeaderDurationsMatchTheDecodedFrames() throws {
        let frames = (0..<3).map { index in
            TestImages.gradientFrame(width: 8, height: 8, seed: index).withDuration([0.04, 0.2, 0.005][index])
        }
        let animation = try #require(KFCrossPlatformImage(frames: frames, loopCount: 2))
        let data = try animation.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        let header = try ImageHeader(data: data)
        #expect(header.frameDurations.count == 3)
        #expect(header.frameDurations == (try KFCrossPlatformImage(data: data)).frames.map(\.duration))
        #expect(header.frameDurations.last == 0.1)
    }

    @Test func kfInfoFramesListsEachDuration() async throws {
        let folder = try KFCommandTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.gif")
        try Self.gif(delays: [5, 20, nil]).write(to: file)
        let text = try await KFCommandTests.run(["info", "--frames", file.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("duration:    0.350 s per loop"))
        #expect(text.stdout.contains("frame 1:     0.050 s"))
        #expect(text.stdout.contains("frame 2:     0.200 s"))
        #expect(text.stdout.contains("frame 3:     0.100 s"))
        let json = try await KFCommandTests.run(["info", "--frames", "--json", file.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["frameDurations"] as? [Double] == [0.05, 0.2, 0.1])
        let plain = try await KFCommandTests.run(["info", "--json", file.path])
        #expect(!plain.stdout.contains("frameDurations"))
    }
}
