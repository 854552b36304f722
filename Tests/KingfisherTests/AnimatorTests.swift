import Foundation
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// Lazily decoded animations: frame sources and the `Animator` that plays them, on a test clock.
@Suite struct AnimatorTests {
    static let palette = [GIFWriter.Color(r: 255, g: 0, b: 0), .init(r: 0, g: 255, b: 0), .init(r: 0, g: 0, b: 255), .init(r: 255, g: 255, b: 255)]

    /// An 8×8 GIF of `count` frames with delays in centiseconds, small frames drawn at moving
    /// offsets with every disposal method, so compositing matters.
    static func gif(count: Int, delays: [Int]) -> Data {
        var writer = GIFWriter(width: 8, height: 8, globalPalette: palette, loopCount: 0)
        writer.frames = (0..<count).map { index in
            let control = GIFWriter.Control(disposal: [1, 2, 3, 0][index % 4], delay: delays[index % delays.count])
            let size = index == 0 ? 8 : 3
            return .filled(UInt8(index % 4), left: index == 0 ? 0 : index % 6, top: index == 0 ? 0 : (index * 2) % 6,
                           width: size, height: size, control: control)
        }
        return writer.data()
    }

    static let lazy = ImageCreatingOptions(preloadAllFrames: false)

    @Test func aLazyImageKeepsOneFrameAndItsBytes() throws {
        let data = Self.gif(count: 12, delays: [10])
        let image = try KFCrossPlatformImage(data: data, options: Self.lazy)
        let source = try #require(image.frameSource)
        #expect(image.frames.count == 1 && image.frameCount == 12 && source.frameCount == 12)
        #expect(image.cost == 8 * 8 * 4)
        #expect(image.loopCount == 0)
        #expect(image.kf.gifRepresentation() == data)
        #expect(DefaultCacheSerializer.default.data(with: image, original: data) == data)
        #expect(try KFCrossPlatformImage(data: data).frames.count == 12)
        // A still GIF stays an ordinary image.
        #expect(try KFCrossPlatformImage(data: Self.gif(count: 1, delays: [10]), options: Self.lazy).frameSource == nil)
    }

    @Test(arguments: [false, true])
    func framesOnDemandEqualAFullDecode(webp: Bool) throws {
        var data = Self.gif(count: 9, delays: [4, 10, 0])
        if webp {
            let full = try KFCrossPlatformImage(data: data)
            data = try full.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        }
        let full = try KFCrossPlatformImage(data: data)
        let source = try #require(try KFCrossPlatformImage(data: data, options: Self.lazy).frameSource)
        #expect(source.frameCount == full.frames.count)
        // Forward, then backward and skipping: each frame is the full decode's, pixel for pixel.
        for index in Array(0..<9) + [3, 8, 0, 5, 4] {
            let frame = try source.frame(at: index, maxSize: nil)
            #expect(frame.pixels == full.frames[index].pixels)
            #expect(frame.duration == full.frames[index].duration)
            #expect(source.duration(at: index) == full.frames[index].duration)
        }
        let small = try source.frame(at: 2, maxSize: CGSize(width: 4, height: 4))
        #expect(small.width == 4 && small.height == 4)
        #expect(throws: KingfisherError.self) { try source.frame(at: 9, maxSize: nil) }
    }

    @Test func framesAdvanceByTheirOwnDelaysWithTheLeftoverCarried() async throws {
        let source = try #require(try KFCrossPlatformImage(data: Self.gif(count: 3, delays: [10, 20, 30]), options: Self.lazy).frameSource)
        let animator = Animator(frameSource: source, maxFrameCount: 3)
        await animator.waitUntilPreloaded()
        animator.tick(at: 100)
        #expect(animator.currentFrameIndex == 0)
        animator.tick(at: 100.09)
        #expect(animator.currentFrameIndex == 0)
        animator.tick(at: 100.12) // 0.12: frame 0 (0.1) done, 0.02 carried into frame 1
        #expect(animator.currentFrameIndex == 1)
        await animator.waitUntilPreloaded()
        animator.tick(at: 100.31) // 0.02 + 0.19 = 0.21 ≥ 0.2
        #expect(animator.currentFrameIndex == 2)
        await animator.waitUntilPreloaded()
        animator.tick(at: 100.61) // 0.01 + 0.30: frame 2 done, back to frame 0
        #expect(animator.currentFrameIndex == 0)
        #expect(animator.loopsPlayed == 1)
        #expect(animator.currentFrameImage?.firstFrame.pixels == (try source.frame(at: 0, maxSize: nil)).pixels)
        // A long pause counts as one second: 1.01 s plays 0→1→2→0→1→2 and leaves 0.11 s.
        animator.tick(at: 1000)
        #expect(animator.currentFrameIndex == 2)
        #expect(animator.loopsPlayed == 2)
        animator.tick(at: 1000.19) // 0.11 + 0.19 = 0.3: frame 2 done
        #expect(animator.currentFrameIndex == 0)
        #expect(animator.lateFrameCount == 0)
    }

    final class Recording: AnimatorDelegate {
        let loops = Recorder<UInt>()
        let finished = Recorder<Int>()
        func animator(_ animator: Animator, didPlayAnimationLoops count: UInt) { loops.record(count) }
        func animatorDidFinishAnimating(_ animator: Animator) { finished.record(animator.currentFrameIndex) }
    }

    @Test func aFiniteRepeatStopsAfterItsLoopsAndTellsTheDelegate() async throws {
        let source = try #require(try KFCrossPlatformImage(data: Self.gif(count: 4, delays: [10]), options: Self.lazy).frameSource)
        let animator = Animator(frameSource: source, maxFrameCount: 2, repeatCount: .finite(count: 2))
        let delegate = Recording()
        animator.delegate = delegate
        animator.tick(at: 0)
        for step in 1...20 {
            await animator.waitUntilPreloaded()
            animator.tick(at: Double(step) * 0.1)
        }
        #expect(animator.isFinished)
        #expect(delegate.loops.values == [1, 2])
        #expect(delegate.finished.values == [3])
        #expect(animator.loopsPlayed == 2)
    }

    /// Counts frames decoded through it.
    final class CountingSource: ImageFrameSource {
        let base: any ImageFrameSource
        let decodes = Mutex(0)
        init(_ base: any ImageFrameSource) { self.base = base }
        var data: Data { base.data }
        var frameCount: Int { base.frameCount }
        func duration(at index: Int) -> TimeInterval { base.duration(at: index) }
        func frame(at index: Int, maxSize: CGSize?) throws -> ImageFrame {
            decodes.withLock { $0 += 1 }
            return try base.frame(at: index, maxSize: maxSize)
        }
    }

    @Test func neverMoreThanTheWindowIsDecodedAtOnce() async throws {
        let lazy = try #require(try KFCrossPlatformImage(data: Self.gif(count: 30, delays: [5]), options: Self.lazy).frameSource)
        let source = CountingSource(lazy)
        let animator = Animator(frameSource: source, maxFrameCount: 4)
        animator.tick(at: 0)
        for step in 1...90 {
            await animator.waitUntilPreloaded()
            #expect(animator.decodedFrameCount <= 4)
            animator.tick(at: Double(step) * 0.05)
        }
        #expect(animator.loopsPlayed == 3)
        #expect(animator.peakDecodedFrameCount == 4)
        #expect(animator.lateFrameCount == 0)
        // Each frame decoded once per pass through the window, never twice ahead of time.
        #expect(source.decodes.withLock { $0 } <= 90 + 4)
    }

    @Test func aDamagedFramePlaysTheFramesBeforeItThenFails() async throws {
        var writer = GIFWriter(width: 4, height: 4, globalPalette: Self.palette, loopCount: 0)
        writer.frames = (0..<5).map { .filled(UInt8($0 % 4), width: 4, height: 4, control: .init(delay: 10)) }
        // Frame 4's LZW data starts with a code beyond the table: giflib refuses it.
        writer.frames[3].rawImageData = [2, 3, 0xFF, 0xFF, 0xFF, 0]
        let data = writer.data()
        let image = try KFCrossPlatformImage(data: data, options: Self.lazy)
        let source = try #require(image.frameSource)
        let animator = Animator(frameSource: source, maxFrameCount: 10)
        let delegate = Recording()
        animator.delegate = delegate
        animator.tick(at: 0)
        var shown: [Int] = [animator.currentFrameIndex]
        for step in 1...10 where !animator.isFinished {
            await animator.waitUntilPreloaded()
            animator.tick(at: Double(step) * 0.1)
            if shown.last != animator.currentFrameIndex { shown.append(animator.currentFrameIndex) }
        }
        #expect(shown == [0, 1, 2])
        #expect(animator.isFinished)
        #expect(animator.error?.errorCode == 4103)
        #expect(delegate.finished.values.count == 1)
    }

    @Test @MainActor func anAnimatedTargetGetsALazyImage() async throws {
        try await ViewKit.run { env in
            let data = Self.gif(count: 6, delays: [10])
            env.server.route("/a.gif", .ok(data))
            let view = LazyAnimationView()
            let result = try await view.kf.setImageAsync(with: env.server.url("/a.gif"), options: env.options)
            #expect(result.image.frameSource?.frameCount == 6)
            #expect(result.image.frames.count == 1)
            let plain = TestImageView()
            let full = try await plain.kf.setImageAsync(with: env.server.url("/a.gif"), options: env.options)
            #expect(full.image.frames.count == 6 && full.image.frameSource == nil)
            let preloaded = try await LazyAnimationView().kf.setImageAsync(
                with: env.server.url("/a.gif"), options: env.options + [.preloadAllAnimationData])
            #expect(preloaded.image.frames.count == 6)
        }
    }
}

/// A target that plays animations itself, so it asks for lazily decoded frames.
@MainActor
final class LazyAnimationView: KingfisherHasImageComponent {
    let kingfisherState = KingfisherTargetState()
    var image: KFCrossPlatformImage?
    nonisolated init() {}
    func shouldPreloadAllAnimation() -> Bool { false }
}
