import Foundation
import Kingfisher
@testable import KingfisherGTK
import KingfisherGTKShims
import KingfisherTestServer
import Testing

/// `kf.setImage` on a real `ImageView` in a real window, checked by its pixels.
@MainActor
@Suite(.serialized)
struct ImageViewTests {
    init() throws {
        try GTKTest.setUp()
    }

    /// A manager with its own empty caches, so every test's load goes to the network.
    private func options(_ extra: KingfisherOptionsInfo = []) -> KingfisherOptionsInfo {
        let cache = ImageCache(name: "gtk-tests-\(UUID().uuidString)")
        return [.targetCache(cache)] + extra
    }

    @Test func showsThePlaceholderWhileLoadingThenTheImageWithTheSpinnerOnlyWhileLoading() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/red.png", .held(try Pixels.png(.red), gate: gate))
        let view = ImageView()
        view.kf.indicatorType = .activity
        let window = try TestWindow(child: view.widget)
        defer { window.close() }

        let finished = Counter()
        view.kf.setImage(with: server.url("/red.png"), placeholder: Pixels.image(.blue), options: options()) { result in
            #expect((try? result.get()) != nil)
            finished.add()
        }
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: .blue))
        #expect(view.isSpinnerAnimating)

        gate.open()
        try await GTKTest.pump(until: "the load to finish") { finished.value == 1 }
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: .red))
        #expect(!view.isSpinnerAnimating)
        #expect(finished.value == 1)
        try await server.shutdown()
    }

    @Test func aFadeShowsPixelsBetweenThePlaceholderAndTheImageHalfWay() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/red.png", .ok(try Pixels.png(.red)))
        let view = ImageView()
        let clock = ManualFrameClock()
        view.frameClock = clock
        let window = try TestWindow(child: view.widget)
        defer { window.close() }
        try await GTKTest.pump(until: "the view to be shown") { gtk_widget_get_mapped(view.widget) != 0 }

        let finished = Counter()
        view.kf.setImage(with: server.url("/red.png"), placeholder: Pixels.image(.blue),
                         options: options([.transition(.fade(1))])) { _ in finished.add() }
        try await GTKTest.pump(until: "the fade to start") { view.fadeProgress != nil }
        clock.advance(to: 1_000_000)
        clock.advance(by: 0.5)
        let middle = try await GTKTest.centreColour(of: view.widget)
        // Ease-in-out is exactly half way at the half time: the new image at 50% over the old one.
        let expected = RGBA.blue.mixed(with: .red, fraction: 0.5)
        #expect(middle.isClose(to: expected, tolerance: 8), "mid-fade \(middle), expected about \(expected)")
        #expect(finished.value == 0, "the completion waits for the transition's end")

        clock.advance(by: 0.5)
        #expect(finished.value == 1)
        #expect(view.fadeProgress == nil)
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: .red))
        try await server.shutdown()
    }

    @Test func aMissingImageShowsTheFailureImage() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/missing.png", .status(404))
        let view = ImageView()
        let window = try TestWindow(child: view.widget)
        defer { window.close() }

        let failure = Box<KingfisherError>()
        view.kf.setImage(with: server.url("/missing.png"), placeholder: Pixels.image(.blue),
                         options: options([.onFailureImage(Pixels.image(.green))])) { result in
            if case .failure(let error) = result { failure.value = error }
        }
        try await GTKTest.pump(until: "the failure") { failure.value != nil }
        #expect(failure.value?.isInvalidResponseStatusCode(404) == true)
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: .green))
        try await server.shutdown()
    }

    @Test func aWidgetPlaceholderCoversTheViewUntilTheImageArrives() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/red.png", .held(try Pixels.png(.red), gate: gate))
        let view = ImageView()
        let window = try TestWindow(child: view.widget)
        defer { window.close() }
        let label: GtkWidgetPointer = kf_gtk_widget(gtk_label_new("loading"))
        let placeholder = WidgetPlaceholder(label)

        let finished = Counter()
        view.kf.setImage(with: server.url("/red.png"), placeholder: placeholder, options: options()) { _ in finished.add() }
        #expect(view.placeholderWidget == label)
        #expect(gtk_widget_get_parent(label) == view.widget)
        gate.open()
        try await GTKTest.pump(until: "the load to finish") { finished.value == 1 }
        #expect(view.placeholderWidget == nil)
        #expect(gtk_widget_get_parent(label) == nil)
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: .red))
        try await server.shutdown()
    }

    @Test func cancellingTheDownloadFailsItAndKeepsThePlaceholder() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/never.png", .never())
        let view = ImageView()
        let window = try TestWindow(child: view.widget)
        defer { window.close() }

        let failure = Box<KingfisherError>()
        view.kf.setImage(with: server.url("/never.png"), placeholder: Pixels.image(.blue), options: options()) { result in
            if case .failure(let error) = result { failure.value = error }
        }
        await server.waitUntilRequestCount(for: "/never.png", reaches: 1)
        view.kf.cancelDownloadTask()
        try await GTKTest.pump(until: "the cancellation") { failure.value != nil }
        #expect(failure.value?.isTaskCancelled == true)
        #expect(try await GTKTest.centreColour(of: view.widget).isClose(to: .blue))
        try await server.shutdown()
    }

    @Test func aTextureReadsTheFramesOwnPixels() throws {
        try GTKTest.setUp()
        let frame = Pixels.solid(.red, width: 8, height: 4)
        let (texture, storage) = frame.makeTextureWithStorage()
        let unwrapped = try #require(texture)
        defer { g_object_unref(UnsafeMutableRawPointer(unwrapped)) }
        let pixelAddress = frame.pixels.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
        #expect(storage == pixelAddress)
        #expect(gdk_texture_get_width(unwrapped) == 8)
        #expect(gdk_texture_get_height(unwrapped) == 4)
    }
}

/// A count the main actor changes and the test reads.
@MainActor
final class Counter {
    private(set) var value = 0
    func add() { value += 1 }
}

/// A value the main actor sets and the test reads.
@MainActor
final class Box<Value> {
    var value: Value?
}
