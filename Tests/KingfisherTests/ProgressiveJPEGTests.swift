import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// Progressive JPEG: scans found as bytes arrive, partial images on the target, none after the end.
@MainActor
@Suite struct ProgressiveJPEGTests {
    /// A 192×128 image with detail at every scale (gradients, stripes of several widths, a little
    /// noise), so each scan has something to add.
    static let picture: KFCrossPlatformImage = {
        let width = 192, height = 128
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var noise: UInt32 = 12345
        for y in 0..<height {
            for x in 0..<width {
                noise = noise &* 1_103_515_245 &+ 12345
                let grain = Int(noise >> 27) - 16
                let stripes = ((x / (1 + y / 16)) % 2) * 60
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(clamping: x * 255 / width / 2 + stripes + grain)
                pixels[offset + 1] = UInt8(clamping: y * 255 / height / 2 + (x * y) % 97 + grain)
                pixels[offset + 2] = UInt8(clamping: 200 - stripes + grain)
            }
        }
        return KFCrossPlatformImage(frame: ImageFrame(unchecked: width, height: height, pixels: pixels))
    }()

    static func jpeg(progressive: Bool) throws -> Data {
        try picture.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 0.9, progressive: progressive))
    }

    @Test func theTrackerFindsEachScanOnceWhateverThePieces() throws {
        let data = try Self.jpeg(progressive: true)
        var whole = JPEGScanTracker()
        whole.update(with: data)
        #expect(whole.isProgressive && whole.reachedEnd && !whole.isInvalid)
        #expect(whole.completedScanEnds.count >= 6)

        var pieces = JPEGScanTracker()
        var fed = Data()
        for byte in data {
            fed.append(byte)
            pieces.update(with: fed)
        }
        #expect(pieces.completedScanEnds == whole.completedScanEnds)

        // Every prefix closed with EOI decodes to the full size.
        for end in whole.completedScanEnds {
            let partial = try KFCrossPlatformImage(data: JPEGScanTracker.prefix(of: data, endingAt: end))
            #expect(partial.pixelWidth == 192 && partial.pixelHeight == 128)
        }

        var baseline = JPEGScanTracker()
        baseline.update(with: try Self.jpeg(progressive: false))
        #expect(!baseline.isProgressive && baseline.completedScanEnds.count == 1)
        var junk = JPEGScanTracker()
        junk.update(with: Data("not a jpeg".utf8))
        #expect(junk.isInvalid)
    }

    /// What a target showed while a progressive (or baseline) download was played to it.
    struct Played {
        var updates: [KFCrossPlatformImage]
        var final: KFCrossPlatformImage?
        var completions: Int
    }

    /// Serves `data` in pieces that each complete one more scan, opening the next gate only once
    /// the target has shown the partial image of the previous one (for a baseline file, at once).
    static func play(_ data: Data, expectUpdates: Bool) async throws -> Played {
        var tracker = JPEGScanTracker()
        tracker.update(with: data)
        var cuts = tracker.completedScanEnds.map { $0 + 2 }.filter { $0 < data.count }
        cuts.append(data.count)
        var pieces: [Int] = []
        var start = 0
        for cut in cuts where cut > start {
            pieces.append(cut - start)
            start = cut
        }
        let gates = pieces.map { _ in TestGate() }
        let played = Mutex(Played(updates: [], final: nil, completions: 0))
        try await ViewKit.run { env in
            env.server.route("/p.jpg", .paced(data, pieces: pieces, gates: gates))
            let view = TestImageView()
            let completions = Recorder<Bool>()
            view.kf.setImage(
                with: env.server.url("/p.jpg"),
                options: env.options + [.progressiveJPEG(ImageProgressive(isBlur: true, isFastestScan: true, scanInterval: 0))]
            ) { result in completions.record((try? result.get()) != nil) }
            for (index, gate) in gates.enumerated() {
                gate.open()
                if expectUpdates, index < gates.count - 1 {
                    await view.waitForImage { _ in view.history.compactMap { $0 }.count >= index + 1 }
                }
            }
            _ = await completions.wait(for: 1)
            let shown = view.history.compactMap { $0 }
            let outcome = Played(updates: Array(shown.dropLast()), final: view.image, completions: completions.values.count)
            played.withLock { $0 = outcome }
        }
        return played.withLock { $0 }
    }

    @Test func partialImagesArriveSharperEachTimeThenTheFinalOnce() async throws {
        let data = try Self.jpeg(progressive: true)
        let played = try await Self.play(data, expectUpdates: true)
        #expect(played.updates.count >= 3)
        #expect(played.completions == 1)
        let final = try #require(played.final)
        #expect(final == (try KFCrossPlatformImage(data: data)))
        // Partial images have the final image's size in points (early ones are decoded smaller,
        // at a smaller scale), and each is closer to the final image than the one before.
        #expect(played.updates.allSatisfy { $0.size == final.size })
        #expect(played.updates.first.map { $0.pixelWidth < final.pixelWidth } == true)
        let fullSize = ResizingImageProcessor(referenceSize: CGSize(width: final.pixelWidth, height: final.pixelHeight))
        let distances = try played.updates.map { update in
            let resized = try #require(fullSize.process(item: .image(update.withScale(1)), options: .init(nil)))
            return TestImages.meanDifference(resized.firstFrame, final.firstFrame)
        }
        for (earlier, later) in zip(distances, distances.dropFirst()) {
            #expect(later < earlier)
        }
    }

    @Test func aSupersededRequestShowsNoFurtherPartialImage() async throws {
        let data = try Self.jpeg(progressive: true)
        var tracker = JPEGScanTracker()
        tracker.update(with: data)
        let firstCut = tracker.completedScanEnds[1] + 2
        let gates = [TestGate(), TestGate()]
        try await ViewKit.run { env in
            env.server.route("/p.jpg", .paced(data, pieces: [firstCut, data.count - firstCut], gates: gates))
            env.server.route("/b.png", .ok(ViewKit.png(4)))
            let view = TestImageView()
            let a = Recorder<SetResult>(), b = Recorder<SetResult>()
            view.kf.setImage(
                with: env.server.url("/p.jpg"),
                options: env.options + [.progressiveJPEG(ImageProgressive(isBlur: false, isFastestScan: false, scanInterval: 0))]
            ) { a.record($0) }
            gates[0].open()
            await view.waitForImage { _ in view.history.compactMap { $0 }.count >= 1 }
            view.kf.setImage(with: env.server.url("/b.png"), options: env.options) { b.record($0) }
            _ = await b.wait(for: 1)
            let shownBeforeRest = view.history.count
            gates[1].open()
            let aResult = await a.wait(for: 1)[0]
            #expect(aResult.error?.isNotCurrentTask == true)
            #expect(view.history.count == shownBeforeRest)
            #expect(view.image?.pixelWidth == 5)
        }
    }

    @Test func aBaselineJPEGGivesNoPartialImage() async throws {
        let played = try await Self.play(try Self.jpeg(progressive: false), expectUpdates: false)
        #expect(played.updates.isEmpty)
        #expect(played.completions == 1)
    }
}
