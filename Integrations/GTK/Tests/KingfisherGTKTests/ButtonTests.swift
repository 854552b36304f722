import Foundation
import Kingfisher
@testable import KingfisherGTK
import KingfisherGTKShims
import KingfisherTestServer
import Testing

/// `button.kf.setImage(with:for:)` and `setBackgroundImage(with:for:)` on a real `Button` in a real
/// window, checked by its pixels as GTK's state flags change.
@MainActor
@Suite(.serialized)
struct ButtonTests {
    static let yellow = RGBA(r: 240, g: 200, b: 20)
    static let purple = RGBA(r: 140, g: 30, b: 160)

    init() throws {
        try GTKTest.setUp()
    }

    /// The colours at the centre (the foreground image) and 24 pixels left of it (the background).
    private func colours(of button: Button) async throws -> (image: RGBA, background: RGBA) {
        let shot = try await GTKTest.snapshot(button.widget)
        let x = shot.pixelWidth / 2, y = shot.pixelHeight / 2
        return (Pixels.colour(of: shot, x: x, y: y), Pixels.colour(of: shot, x: x - 24, y: y))
    }

    @Test func eachStateShowsItsOwnImageAndTheNormalOneOtherwise() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/normal.png", .ok(try Pixels.png(.red)))
        server.route("/pressed.png", .ok(try Pixels.png(Self.purple)))
        server.route("/disabled.png", .ok(try Pixels.png(.blue)))
        server.route("/selected.png", .ok(try Pixels.png(Self.yellow)))
        server.route("/background.png", .ok(try Pixels.png(.green)))
        let button = Button()
        let window = try TestWindow(child: button.widget, width: 120, height: 96)
        defer { window.close() }
        let options: KingfisherOptionsInfo = [.targetCache(ImageCache(name: "gtk-button-\(UUID().uuidString)"))]

        let finished = Counter()
        // The article's calls, with a cache of the test's own.
        button.kf.setImage(with: server.url("/normal.png"), for: .normal, placeholder: Pixels.image(.blue), options: options) { result in
            #expect((try? result.get()) != nil)
            finished.add()
        }
        #expect(button.currentImage == Pixels.image(.blue), "the placeholder shows while the image loads")
        button.kf.setImage(with: server.url("/pressed.png"), for: .highlighted, options: options) { _ in finished.add() }
        button.kf.setImage(with: server.url("/disabled.png"), for: .disabled, options: options) { _ in finished.add() }
        button.kf.setImage(with: server.url("/selected.png"), for: .selected, options: options) { _ in finished.add() }
        button.kf.setBackgroundImage(with: server.url("/background.png"), for: .normal, options: options) { _ in finished.add() }
        try await GTKTest.pump(until: "the five loads to finish") { finished.value == 5 }

        var shown = try await colours(of: button)
        #expect(button.state == .normal)
        #expect(shown.image.isClose(to: .red), "normal image \(shown.image)")
        #expect(shown.background.isClose(to: .green), "normal background \(shown.background)")

        // Pressed: GTK's :active flag, which its click gesture sets while the button is held down.
        gtk_widget_set_state_flags(button.widget, GTK_STATE_FLAG_ACTIVE, 0)
        #expect(button.state == .highlighted)
        shown = try await colours(of: button)
        #expect(shown.image.isClose(to: Self.purple), "highlighted image \(shown.image)")
        #expect(shown.background.isClose(to: .green), "no highlighted background: the normal one, \(shown.background)")
        gtk_widget_unset_state_flags(button.widget, GTK_STATE_FLAG_ACTIVE)

        button.isSelected = true
        #expect(button.state == .selected)
        shown = try await colours(of: button)
        #expect(shown.image.isClose(to: Self.yellow), "selected image \(shown.image)")
        button.isSelected = false

        button.isEnabled = false
        #expect(button.state == .disabled)
        #expect(button.currentImage == Pixels.image(.blue))
        shown = try await colours(of: button)
        // The theme may draw an insensitive button's content dimmed: the image is still the blue one.
        #expect(shown.image.b > 150 && shown.image.r < 100 && shown.image.g < 100, "disabled image \(shown.image)")

        button.isEnabled = true
        shown = try await colours(of: button)
        #expect(shown.image.isClose(to: .red), "back to normal \(shown.image)")
        try await server.shutdown()
    }

    @Test func aNewRequestForAStateSupersedesOnlyThatStatesRequest() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/old.png", .held(try Pixels.png(.blue), gate: gate))
        server.route("/new.png", .ok(try Pixels.png(.red)))
        server.route("/selected.png", .ok(try Pixels.png(Self.yellow)))
        let button = Button()
        let window = try TestWindow(child: button.widget, width: 120, height: 96)
        defer { window.close() }
        let options: KingfisherOptionsInfo = [.targetCache(ImageCache(name: "gtk-button-\(UUID().uuidString)"))]

        let outcomes = Box<[String]>()
        outcomes.value = []
        button.kf.setImage(with: server.url("/old.png"), for: .normal, options: options) { result in
            outcomes.value?.append(result.isNotCurrent ? "old superseded" : "old shown")
        }
        button.kf.setImage(with: server.url("/selected.png"), for: .selected, options: options) { result in
            outcomes.value?.append((try? result.get()) != nil ? "selected shown" : "selected failed")
        }
        await server.waitUntilRequestCount(for: "/old.png", reaches: 1)
        button.kf.setImage(with: server.url("/new.png"), for: .normal, options: options) { result in
            outcomes.value?.append((try? result.get()) != nil ? "new shown" : "new failed")
        }
        gate.open()
        try await GTKTest.pump(until: "the three requests to end") { outcomes.value?.count == 3 }
        #expect(Set(outcomes.value ?? []) == ["old superseded", "selected shown", "new shown"])
        #expect(try await colours(of: button).image.isClose(to: .red))
        button.isSelected = true
        #expect(try await colours(of: button).image.isClose(to: Self.yellow))
        try await server.shutdown()
    }
}

extension Result where Success == RetrieveImageResult, Failure == KingfisherError {
    /// Whether this is the `.notCurrentSourceTask` failure of a superseded request.
    fileprivate var isNotCurrent: Bool {
        if case .failure(.imageSettingError(.notCurrentSourceTask)) = self { return true }
        return false
    }
}
