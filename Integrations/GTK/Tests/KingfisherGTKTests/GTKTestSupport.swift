import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims
import Testing

/// An 8-bit RGBA colour, straight (not premultiplied), for pixel checks.
struct RGBA: Equatable, CustomStringConvertible {
    var r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255

    static let red = RGBA(r: 220, g: 30, b: 30)
    static let blue = RGBA(r: 30, g: 40, b: 220)
    static let green = RGBA(r: 20, g: 200, b: 60)

    var description: String { "(\(r), \(g), \(b), \(a))" }

    /// Whether each channel is within `tolerance` of `other`'s.
    func isClose(to other: RGBA, tolerance: Int = 6) -> Bool {
        abs(Int(r) - Int(other.r)) <= tolerance && abs(Int(g) - Int(other.g)) <= tolerance
            && abs(Int(b) - Int(other.b)) <= tolerance && abs(Int(a) - Int(other.a)) <= tolerance
    }

    /// The straight colour a `fraction` of the way from `self` to `other`.
    func mixed(with other: RGBA, fraction: Double) -> RGBA {
        func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) + (Double(y) - Double(x)) * fraction).rounded()) }
        return RGBA(r: mix(r, other.r), g: mix(g, other.g), b: mix(b, other.b), a: mix(a, other.a))
    }
}

enum GTKTestError: Error, CustomStringConvertible {
    case timedOut(String)
    case noSnapshot

    var description: String {
        switch self {
        case .timedOut(let what): return "timed out waiting for \(what)"
        case .noSnapshot: return "the widget could not be rendered (not realized, or no size)"
        }
    }
}

/// Images and pixels for the tests.
enum Pixels {
    /// An opaque `width`×`height` image of one colour.
    static func solid(_ colour: RGBA, width: Int = 16, height: Int = 16, duration: TimeInterval = 0) -> ImageFrame {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for offset in stride(from: 0, to: pixels.count, by: 4) {
            pixels[offset] = colour.r
            pixels[offset + 1] = colour.g
            pixels[offset + 2] = colour.b
            pixels[offset + 3] = 255
        }
        // A valid size and a buffer of exactly its length: the initializer cannot fail here.
        guard let frame = ImageFrame(width: width, height: height, pixels: pixels) else {
            preconditionFailure("a \(width)×\(height) frame with \(pixels.count) bytes")
        }
        return frame.withDuration(duration)
    }

    static func image(_ colour: RGBA, width: Int = 16, height: Int = 16) -> KFCrossPlatformImage {
        KFCrossPlatformImage(frame: solid(colour, width: width, height: height))
    }

    static func png(_ colour: RGBA, width: Int = 16, height: Int = 16) throws -> Data {
        let data = image(colour, width: width, height: height).kf.pngRepresentation()
        return try #require(data)
    }

    /// The straight colour at (`x`, `y`) of `image`'s first frame.
    static func colour(of image: KFCrossPlatformImage, x: Int, y: Int) -> RGBA {
        let frame = image.frames[0]
        let offset = y * frame.bytesPerRow + x * 4
        let p = frame.pixels
        let a = p[offset + 3]
        guard a > 0 else { return RGBA(r: 0, g: 0, b: 0, a: 0) }
        func unpremultiply(_ v: UInt8) -> UInt8 { UInt8(min(255, (Int(v) * 255 + Int(a) / 2) / Int(a))) }
        return RGBA(r: unpremultiply(p[offset]), g: unpremultiply(p[offset + 1]), b: unpremultiply(p[offset + 2]), a: a)
    }
}

/// A window holding one widget, for rendering it.
@MainActor
final class TestWindow {
    let window: GtkWidgetPointer

    /// Opens a `width`×`height` window showing `child`, once GTK is set up.
    init(child: GtkWidgetPointer, width: Int32 = 64, height: Int32 = 64) throws {
        try GTKTest.setUp()
        window = kf_gtk_widget(gtk_window_new())
        gtk_window_set_default_size(kf_gtk_window(window), width, height)
        gtk_window_set_child(kf_gtk_window(window), child)
        gtk_window_present(kf_gtk_window(window))
    }

    func close() {
        gtk_window_destroy(kf_gtk_window(window))
        GTKTest.iterate()
    }
}

@MainActor
enum GTKTest {
    /// Initialises GTK once; fails the test with the reason when there is no display.
    static func setUp() throws {
        _ = try GTKMainLoop.initialize()
    }

    static func iterate() {
        GTKMainLoop.runPendingEvents()
    }

    /// Drives GTK's loop and the main actor until `condition` holds; fails after `limit`. The limit
    /// is a bound on a hang, not a wait the test relies on.
    static func pump(until what: String, limit: Duration = .seconds(20), _ condition: () -> Bool) async throws {
        guard await GTKMainLoop.drive(until: condition, limit: limit) else { throw GTKTestError.timedOut(what) }
    }

    /// Renders `widget` once GTK has drawn a frame of it as it is now.
    static func snapshot(_ widget: GtkWidgetPointer) async throws -> KFCrossPlatformImage {
        guard let image = await WidgetSnapshot.renderAfterNextFrame(widget) else { throw GTKTestError.noSnapshot }
        return image
    }

    /// The colour at the centre of `widget` as drawn now.
    static func centreColour(of widget: GtkWidgetPointer) async throws -> RGBA {
        let image = try await snapshot(widget)
        return Pixels.colour(of: image, x: image.pixelWidth / 2, y: image.pixelHeight / 2)
    }
}
