import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Kingfisher
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// thumbor's `trim`, `fill()` variants, `AUTO_WEBP`/`AUTO_AVIF`, `format(heic)` and the filters the
/// server does not apply, against a real origin and server.
@Suite("kf serve thumbor filters")
struct ThumborFiltersServingTests {
    static let red = RGBA8(r: 255, g: 0, b: 0, a: 255)
    static let white = RGBA8(r: 255, g: 255, b: 255, a: 255)
    static let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)

    /// A `width`×`height` PNG of `background` with the rectangle `rect` painted `color`.
    static func png(width: Int, height: Int, background: RGBA8, rect: (x: Int, y: Int, w: Int, h: Int), color: RGBA8) -> Data {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let inside = x >= rect.x && x < rect.x + rect.w && y >= rect.y && y < rect.y + rect.h
                let pixel = inside ? color : background
                pixels += [pixel.r, pixel.g, pixel.b, pixel.a]
            }
        }
        return (try? KFCrossPlatformImage(frame: ImageFrame(unchecked: width, height: height, pixels: pixels)).encoded(as: .PNG)) ?? Data()
    }

    static func frame(_ response: HummingbirdTesting.TestResponse) throws -> ImageFrame {
        try KFCrossPlatformImage(data: response.data).firstFrame
    }

    static func mount(_ grammar: ThumborGrammar = ThumborGrammar(securityKey: nil, allowsUnsafe: true)) -> GrammarMount {
        GrammarMount(prefix: "/t", grammar: grammar)
    }

    /// `host:port` of the harness's origin.
    static func origin(_ harness: ServeHarness) throws -> String {
        let url = harness.origin.url("/")
        let host = try #require(url.host)
        let port = try #require(url.port)
        return "\(host):\(port)"
    }

    @Test("trim cuts borders of the corner's colour, before the geometry; a manual crop is read in the source")
    func trim() async throws {
        try await ServeKit.run(configure: { $0.mounts = [Self.mount()] }) { harness in
            harness.origin.route("/framed.png", .ok(Self.png(width: 40, height: 30, background: Self.white,
                                                              rect: (12, 9, 10, 8), color: Self.red)))
            // A bottom-right corner that differs from the rest of the border.
            harness.origin.route("/corner.png", .ok(Self.png(width: 40, height: 30, background: Self.white,
                                                              rect: (30, 20, 10, 10), color: Self.red)))
            let origin = try Self.origin(harness)
            for path in ["trim", "trim:top-left", "trim:top-left:20"] {
                let response = try await harness.get("/t/unsafe/\(path)/\(origin)/framed.png")
                #expect(response.status == .ok)
                let frame = try Self.frame(response)
                #expect(frame.width == 10 && frame.height == 8, "\(path)")
                #expect(frame.pixel(x: 0, y: 0) == Self.red && frame.pixel(x: 9, y: 7) == Self.red)
            }
            // From the bottom-right, red is the border: what is left is the white L around it.
            let bottomRight = try Self.frame(try await harness.get("/t/unsafe/trim:bottom-right/\(origin)/corner.png"))
            #expect(bottomRight.width == 40 && bottomRight.height == 30)
            let topLeft = try Self.frame(try await harness.get("/t/unsafe/trim/\(origin)/corner.png"))
            #expect(topLeft.width == 10 && topLeft.height == 10 && topLeft.pixel(x: 0, y: 0) == Self.red)
            // Then the size: 10×8 fitted into 5×5 is 5×4.
            let fitted = try Self.frame(try await harness.get("/t/unsafe/trim/fit-in/5x5/\(origin)/framed.png"))
            #expect(fitted.width == 5 && fitted.height == 4)
            // The crop 14x10:18x14 of the source is 2x1:6x5 of the trimmed image.
            let cropped = try Self.frame(try await harness.get("/t/unsafe/trim/14x10:18x14/\(origin)/framed.png"))
            #expect(cropped.width == 4 && cropped.height == 4 && cropped.pixel(x: 0, y: 0) == Self.red)
        }
    }

    @Test("fill() keeps the image's transparent pixels unless fill_transparent; auto and blur fill from the image")
    func fill() async throws {
        try await ServeKit.run(configure: { $0.mounts = [Self.mount()] }) { harness in
            // 20×20, transparent but for a red square at (5, 5).
            harness.origin.route("/holed.png", .ok(Self.png(width: 20, height: 20, background: Self.clear,
                                                             rect: (5, 5, 10, 10), color: Self.red)))
            harness.origin.route("/blue.png", .ok(Self.png(width: 20, height: 20, background: RGBA8(r: 0, g: 0, b: 255, a: 255),
                                                            rect: (0, 0, 0, 0), color: Self.red)))
            let origin = try Self.origin(harness)
            let kept = try Self.frame(try await harness.get("/t/unsafe/fit-in/40x20/filters:fill(00ff00)/\(origin)/holed.png"))
            #expect(kept.width == 40 && kept.height == 20)
            #expect(kept.pixel(x: 0, y: 10) == RGBA8(r: 0, g: 255, b: 0, a: 255))
            #expect(kept.pixel(x: 10, y: 0) == Self.clear)
            #expect(kept.pixel(x: 20, y: 10) == Self.red)
            let filled = try Self.frame(try await harness.get("/t/unsafe/fit-in/40x20/filters:fill(00ff00,true)/\(origin)/holed.png"))
            #expect(filled.pixel(x: 10, y: 0) == RGBA8(r: 0, g: 255, b: 0, a: 255))
            #expect(filled.pixel(x: 20, y: 10) == Self.red)
            // Same size, fill_transparent: only the transparent pixels change.
            let same = try Self.frame(try await harness.get("/t/unsafe/filters:fill(white,1)/\(origin)/holed.png"))
            #expect(same.width == 20 && same.pixel(x: 0, y: 0) == Self.white && same.pixel(x: 10, y: 10) == Self.red)

            let average = try Self.frame(try await harness.get("/t/unsafe/fit-in/40x20/filters:fill(auto)/\(origin)/blue.png"))
            #expect(average.pixel(x: 2, y: 10) == RGBA8(r: 0, g: 0, b: 255, a: 255))
            let blurred = try Self.frame(try await harness.get("/t/unsafe/fit-in/40x20/filters:fill(blur)/\(origin)/blue.png"))
            #expect(blurred.width == 40 && blurred.height == 20)
            let side = try #require(blurred.pixel(x: 2, y: 10))
            #expect(side.b > 240 && side.r < 10 && side.a == 255)
        }
    }

    @Test("AUTO_WEBP and AUTO_AVIF: WebP (first) or AVIF by Accept without format(), the source's format otherwise")
    func automaticFormats() async throws {
        let grammar = ThumborGrammar(securityKey: nil, allowsUnsafe: true, autoWebP: true, autoAVIF: true)
        try await ServeKit.run(configure: { $0.mounts = [Self.mount(grammar)] }) { harness in
            harness.origin.route("/a.png", .ok(ServeKit.png))
            let origin = try Self.origin(harness)
            let path = "/t/unsafe/fit-in/20x20/\(origin)/a.png"
            let webp = try await harness.get(path, headers: [.accept: "image/avif,image/webp,*/*"])
            #expect(webp.headers[.contentType] == "image/webp" && webp.headers[.vary] == "Accept")
            #expect(ImageFormat(data: webp.data) == .WebP)
            let plain = try await harness.get(path, headers: [.accept: "image/*"])
            #expect(plain.headers[.contentType] == "image/png" && plain.headers[.vary] == "Accept")
            let named = try await harness.get(path.replacingOccurrences(of: "20x20/", with: "20x20/filters:format(png)/"),
                                              headers: [.accept: "image/webp"])
            #expect(named.headers[.contentType] == "image/png" && named.headers[.vary] == nil)
        }
        try await ServeKit.run(configure: { $0.mounts = [Self.mount()] }) { harness in
            harness.origin.route("/a.png", .ok(ServeKit.png))
            let origin = try Self.origin(harness)
            let off = try await harness.get("/t/unsafe/\(origin)/a.png", headers: [.accept: "image/webp"])
            #expect(off.headers[.contentType] == "image/png" && off.headers[.vary] == nil)
        }
    }

    @Test("format(heic) keeps the source's format, as thumbor without a HEIF encoder answers")
    func heic() async throws {
        try await ServeKit.run(configure: { $0.mounts = [Self.mount()] }) { harness in
            harness.origin.route("/a.png", .ok(ServeKit.png))
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let origin = try Self.origin(harness)
            #expect(try await harness.get("/t/unsafe/filters:format(heic)/\(origin)/a.png").headers[.contentType] == "image/png")
            #expect(try await harness.get("/t/unsafe/filters:format(heif)/\(origin)/a.jpg").headers[.contentType] == "image/jpeg")
        }
    }

    @Test("a thumbor filter kf serve does not apply is logged and counted, or refused with strict filters")
    func unsupportedFilters() async throws {
        let log = LogCapture()
        try await ServeKit.run(log: log, configure: { $0.mounts = [Self.mount()] }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let origin = try Self.origin(harness)
            let response = try await harness.get("/t/unsafe/filters:saturation(2):equalize()/\(origin)/a.jpg")
            #expect(response.status == .ok)
            _ = try await harness.get("/t/unsafe/filters:saturation(1)/\(origin)/a.jpg")
            let metrics = try await harness.get("/metrics").text
            #expect(metrics.contains(#"kf_serve_unsupported_filters_total{filter="saturation"} 2"#))
            #expect(metrics.contains(#"kf_serve_unsupported_filters_total{filter="equalize"} 1"#))
        }
        #expect(log.lines.contains { $0.message.contains("saturation() is not applied") })
        let strict = ThumborGrammar(securityKey: nil, allowsUnsafe: true, strictFilters: true)
        try await ServeKit.run(configure: { $0.mounts = [Self.mount(strict)] }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let origin = try Self.origin(harness)
            let refused = try await harness.get("/t/unsafe/filters:saturation(2)/\(origin)/a.jpg")
            #expect(refused.status == .badRequest && refused.text.contains("saturation()"))
            #expect(try await harness.get("/t/unsafe/filters:grayscale()/\(origin)/a.jpg").status == .ok)
        }
    }
}
