import Foundation
import Kingfisher
@testable import KingfisherGTK
import KingfisherGTKShims
import KingfisherTestServer
import Testing

/// `AnimatedImageView` playing lazily decoded animations, frame by frame, on a manual clock.
@MainActor
@Suite(.serialized)
struct AnimatedImageViewTests {
    init() throws {
        try GTKTest.setUp()
    }

    static let colours: [RGBA] = [.red, .green, .blue, RGBA(r: 240, g: 220, b: 20), RGBA(r: 200, g: 40, b: 200)]

    /// A GIF of one solid colour per frame, 0.1 s each (GIF's palette keeps these colours exactly).
    static func gif(loopCount: Int = 0) throws -> Data {
        let frames = colours.map { Pixels.solid($0, width: 32, height: 32, duration: 0.1) }
        let image = try #require(KFCrossPlatformImage(frames: frames, loopCount: loopCount))
        return try #require(image.kf.gifRepresentation())
    }

    @Test func showsFrameKAfterKFrameDelays() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/anim.gif", .ok(try Self.gif()))
        let view = AnimatedImageView()
        let clock = ManualFrameClock()
        view.frameClock = clock
        view.framePreloadCount = 3
        let window = try TestWindow(child: view.widget)
        defer { window.close() }

        let loaded = Box<RetrieveImageResult>()
        view.kf.setImage(with: server.url("/anim.gif"),
                         options: [.targetCache(ImageCache(name: "gtk-anim-\(UUID().uuidString)"))]) { result in
            loaded.value = try? result.get()
        }
        try await GTKTest.pump(until: "the GIF") { loaded.value != nil }
        let image = try #require(loaded.value?.image)
        #expect(image.frameSource != nil, "the view asked for lazily decoded frames")
        #expect(image.frames.count == 1)
        #expect(view.isAnimating)
        let animator = try #require(view.currentAnimator)
        await animator.waitUntilPreloaded()

        clock.advance(to: 1_000_000)
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: Self.colours[0]))
        for k in 1..<Self.colours.count {
            clock.advance(by: 0.1)
            #expect(view.currentFrameIndex == k)
            let colour = try await GTKTest.centreColour(of: view.widget)
            #expect(colour.isClose(to: Self.colours[k]), "frame \(k): \(colour), expected \(Self.colours[k])")
            #expect(animator.decodedFrameCount <= 3)
            await animator.waitUntilPreloaded()
        }
        #expect(animator.peakDecodedFrameCount <= 3)
        #expect(animator.lateFrameCount == 0)
        try await server.shutdown()
    }

    @Test func aFiniteRepeatCountStopsOnTheLastFrameAndTellsTheDelegate() async throws {
        let image = try #require(KFCrossPlatformImage(frames: Self.colours.map { Pixels.solid($0, duration: 0.1) }))
        let view = AnimatedImageView()
        let clock = ManualFrameClock()
        view.frameClock = clock
        view.repeatCount = .finite(count: 2)
        let delegate = RecordingDelegate()
        view.delegate = delegate
        let window = try TestWindow(child: view.widget)
        defer { window.close() }
        view.image = image
        let animator = try #require(view.currentAnimator)
        await animator.waitUntilPreloaded()

        clock.advance(to: 0)
        for _ in 0..<(2 * Self.colours.count + 3) {
            clock.advance(by: 0.1)
            await animator.waitUntilPreloaded()
        }
        #expect(delegate.loops == [1, 2])
        #expect(delegate.finished == 1)
        #expect(!view.isAnimating)
        #expect(view.currentFrameIndex == Self.colours.count - 1)
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: Self.colours[Self.colours.count - 1]))
    }

    @Test func playsWhileMappedAndDecodesFramesAtTheWidgetsPixelSize() async throws {
        let frames = Self.colours.map { Pixels.solid($0, width: 128, height: 128, duration: 0.1) }
        let data = try #require(KFCrossPlatformImage(frames: frames)?.kf.gifRepresentation())
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        #expect(lazy.frameSource != nil)
        let view = AnimatedImageView()
        let window = try TestWindow(child: view.widget, width: 32, height: 32)
        defer { window.close() }
        try await GTKTest.pump(until: "the view to be shown") {
            gtk_widget_get_mapped(view.widget) != 0 && gtk_widget_get_width(view.widget) > 0
        }
        let side = Int(gtk_widget_get_width(view.widget)) * Int(gtk_widget_get_scale_factor(view.widget))
        view.image = lazy
        #expect(view.isAnimating, "a mapped view plays at once")
        let animator = try #require(view.currentAnimator)
        await animator.waitUntilPreloaded()
        let frame = try #require(animator.currentFrameImage)
        #expect(frame.pixelWidth <= side && frame.pixelWidth < 128, "decoded at \(frame.pixelWidth) px for a \(side) px view")

        gtk_widget_set_visible(view.widget, 0)
        try await GTKTest.pump(until: "the view to be unmapped") { gtk_widget_get_mapped(view.widget) == 0 }
        #expect(!view.isAnimating, "an unmapped view stops")
        gtk_widget_set_visible(view.widget, 1)
        try await GTKTest.pump(until: "the view to play again") { view.isAnimating }
    }

    @Test func anImageIndicatorPlaysInTheIndicatorSlotWhileLoading() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/red.png", .held(try Pixels.png(.red), gate: gate))
        let view = ImageView()
        view.kf.indicatorType = .image(imageData: try Self.gif())
        let window = try TestWindow(child: view.widget)
        defer { window.close() }

        let finished = Counter()
        view.kf.setImage(with: server.url("/red.png"),
                         options: [.targetCache(ImageCache(name: "gtk-ind-\(UUID().uuidString)"))]) { _ in finished.add() }
        let indicator = try #require(view.imageIndicatorView)
        #expect(view.isIndicatorVisible)
        try await GTKTest.pump(until: "the indicator to play") { indicator.isAnimating }
        gate.open()
        try await GTKTest.pump(until: "the load") { finished.value == 1 }
        #expect(!view.isIndicatorVisible)
        #expect(!indicator.isAnimating)
        try await server.shutdown()
    }
}

@MainActor
final class RecordingDelegate: AnimatedImageViewDelegate {
    var loops: [UInt] = []
    var finished = 0
    func animatedImageView(_ imageView: AnimatedImageView, didPlayAnimationLoops count: UInt) { loops.append(count) }
    func animatedImageViewDidFinishAnimating(_ imageView: AnimatedImageView) { finished += 1 }
}
