import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Kingfisher
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// Watermarks through thumbor's `watermark()` filter and imgproxy's `wm` option, against a real
/// origin and server: where the copies land, how the watermark is fetched and refused.
@Suite("kf serve watermarks")
struct WatermarkServingTests {
    static let red = RGBA8(r: 255, g: 0, b: 0, a: 255)
    static let blue = RGBA8(r: 0, g: 0, b: 255, a: 255)

    static func solid(width: Int, height: Int, _ color: RGBA8) -> Data {
        let pixels = (0..<(width * height)).flatMap { _ in [color.r, color.g, color.b, color.a] }
        return (try? KFCrossPlatformImage(frame: ImageFrame(unchecked: width, height: height, pixels: pixels)).encoded(as: .PNG)) ?? Data()
    }

    /// A 64×48 blue PNG.
    static let base = solid(width: 64, height: 48, blue)
    /// An 8×8 red PNG.
    static let mark = solid(width: 8, height: 8, red)

    static func frame(_ data: Data) throws -> ImageFrame { try KFCrossPlatformImage(data: data).firstFrame }

    /// The columns of row `y` that are red.
    static func redColumns(_ frame: ImageFrame, row y: Int) -> [Int] {
        (0..<frame.width).filter { frame.pixel(x: $0, y: y) == red }
    }

    /// The rows of column `x` that are red.
    static func redRows(_ frame: ImageFrame, column x: Int) -> [Int] {
        (0..<frame.height).filter { frame.pixel(x: x, y: $0) == red }
    }

    static let thumbor = GrammarMount(prefix: "/t", grammar: ThumborGrammar(securityKey: nil, allowsUnsafe: true))

    @Test("thumbor's watermark(): from the left and top, from the right, centred at alpha 50, repeated, scaled")
    func thumborPositions() async throws {
        try await ServeKit.run(configure: { $0.mounts = [Self.thumbor] }) { harness in
            harness.origin.route("/base.png", .ok(Self.base))
            harness.origin.route("/wm.png", .ok(Self.mark))
            let origin = try ThumborFiltersServingTests.origin(harness)
            func get(_ filter: String) async throws -> ImageFrame {
                let response = try await harness.get("/t/unsafe/filters:\(filter)/\(origin)/base.png")
                #expect(response.status == .ok, "\(filter): \(response.text)")
                #expect(response.headers[.contentType] == "image/png")
                return try Self.frame(response.data)
            }
            let corner = try await get("watermark(\(origin)/wm.png,-2,3,0)")
            #expect(Self.redColumns(corner, row: 3) == Array(54..<62))
            #expect(Self.redRows(corner, column: 54) == Array(3..<11))
            #expect(corner.pixel(x: 53, y: 3) == Self.blue && corner.pixel(x: 62, y: 3) == Self.blue)

            let centred = try await get("watermark(http://\(origin)/wm.png,center,center,50)")
            // alpha 50: the watermark at weight 128 over blue.
            #expect(centred.pixel(x: 28, y: 20) == RGBA8(r: 128, g: 0, b: 127, a: 255))
            #expect(centred.pixel(x: 27, y: 20) == Self.blue && centred.pixel(x: 36, y: 20) == Self.blue)

            // 64 = 8·8 across and 48 = 6·8 down: the whole image.
            let tiled = try await get("watermark(\(origin)/wm.png,repeat,10p,0)")
            #expect(Self.redColumns(tiled, row: 5) == Array(0..<64))
            #expect(Self.redRows(tiled, column: 0) == Array(5..<13))

            // w_ratio 25: 16 of 64 pixels wide, so 16×16.
            let scaled = try await get("watermark(\(origin)/wm.png,0,0,0,25)")
            #expect(Self.redColumns(scaled, row: 0) == Array(0..<16))
            #expect(Self.redRows(scaled, column: 0) == Array(0..<16))
            // The watermark was fetched once for all four, through the manager's caches.
            #expect(harness.origin.requestCount(for: "/wm.png") == 1)
        }
    }

    @Test("thumbor's alpha is subtracted from the watermark's alpha; imgproxy's opacity multiplies it")
    func alphaArithmetic() async throws {
        // Red at alpha 128 (premultiplied 128, 0, 0, 128).
        let faint = Self.solid(width: 8, height: 8, RGBA8(r: 128, g: 0, b: 0, a: 128))
        let configuration = try ImgproxyConfiguration(environment: ["IMGPROXY_WATERMARK_DATA": faint.base64EncodedString()])
        let imgproxy = GrammarMount(prefix: "/i", grammar: ImgproxyGrammar(configuration: configuration, allowsUnsigned: true))
        try await ServeKit.run(configure: { $0.mounts = [Self.thumbor, imgproxy] }) { harness in
            harness.origin.route("/base.png", .ok(Self.base))
            harness.origin.route("/faint.png", .ok(faint))
            let origin = try ThumborFiltersServingTests.origin(harness)
            // alpha 50 takes 127 off: 128 becomes 1.
            let thumbor = try await harness.get("/t/unsafe/filters:watermark(\(origin)/faint.png,0,0,50)/\(origin)/base.png")
            #expect(try Self.frame(thumbor.data).pixel(x: 0, y: 0) == RGBA8(r: 1, g: 0, b: 254, a: 255))
            // Opacity 0.5 halves it: 128 becomes 64.
            let halved = try await harness.get("/i/_/wm:0.5:nowe/plain/\(harness.origin.url("/base.png").absoluteString)")
            #expect(try Self.frame(halved.data).pixel(x: 0, y: 0) == RGBA8(r: 64, g: 0, b: 191, a: 255))
        }
        let lowered = WatermarkAlpha.lowered(try KFCrossPlatformImage(data: faint), by: 27)
        #expect(lowered.firstFrame.pixel(x: 3, y: 3) == RGBA8(r: 101, g: 0, b: 0, a: 101))
        #expect(WatermarkAlpha.lowered(try KFCrossPlatformImage(data: faint), by: 300).firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }

    @Test("thumbor's watermark() is refused outside the allow-list and when it cannot be loaded")
    func thumborRefusals() async throws {
        try await ServeKit.run(configure: { $0.mounts = [Self.thumbor] }) { harness in
            harness.origin.route("/base.png", .ok(Self.base))
            harness.origin.route("/broken.png", .ok(Data("not an image".utf8)))
            let origin = try ThumborFiltersServingTests.origin(harness)
            let outside = try await harness.get("/t/unsafe/filters:watermark(images.example.com/wm.png,0,0,0)/\(origin)/base.png")
            #expect(outside.status == .badRequest)
            #expect(outside.text.contains("watermark host 'images.example.com' is not in the allow-list"))
            let missing = try await harness.get("/t/unsafe/filters:watermark(\(origin)/missing.png,0,0,0)/\(origin)/base.png")
            #expect(missing.status == .badRequest)
            #expect(missing.text.contains("the watermark could not be loaded"))
            let broken = try await harness.get("/t/unsafe/filters:watermark(\(origin)/broken.png,0,0,0)/\(origin)/base.png")
            #expect(broken.status == .badRequest)
            // The source itself was never the problem.
            #expect(try await harness.get("/t/unsafe/\(origin)/base.png").status == .ok)
        }
    }

    @Test("imgproxy's wm draws the configured watermark: bytes by compass position, a URL repeated")
    func imgproxyWatermark() async throws {
        let bytes = try ImgproxyConfiguration(environment: ["IMGPROXY_WATERMARK_DATA": Self.mark.base64EncodedString()])
        #expect(bytes.watermarkOpacity == 1)
        let data = GrammarMount(prefix: "/i", grammar: ImgproxyGrammar(configuration: bytes, allowsUnsigned: true))
        try await ServeKit.run(configure: { $0.mounts = [data] }) { harness in
            harness.origin.route("/base.png", .ok(Self.base))
            let source = harness.origin.url("/base.png").absoluteString
            let corner = try await harness.get("/i/_/wm:1:soea:2:3/plain/\(source)")
            #expect(corner.status == .ok, "\(corner.text)")
            let frame = try Self.frame(corner.data)
            #expect(Self.redColumns(frame, row: 40) == Array(54..<62))
            #expect(Self.redRows(frame, column: 54) == Array(37..<45))
            // Scale 0.25: fitted inside 16×12, so 12×12, in the north-west corner.
            let scaled = try Self.frame(try await harness.get("/i/_/wm:1:nowe:0:0:0.25/plain/\(source)").data)
            #expect(Self.redColumns(scaled, row: 0) == Array(0..<12))
            // Opacity 0 draws nothing; without wm nothing is drawn either.
            let none = try Self.frame(try await harness.get("/i/_/wm:0/plain/\(source)").data)
            #expect(Self.redColumns(none, row: 24).isEmpty)
            let plain = try Self.frame(try await harness.get("/i/_/plain/\(source)").data)
            #expect(Self.redColumns(plain, row: 24).isEmpty)
        }
        // IMGPROXY_WATERMARK_URL: fetched from its own origin like a source, repeated, at half opacity.
        let marks = try await TestHTTPServer.start()
        marks.route("/wm.png", .ok(Self.mark))
        let url = try ImgproxyConfiguration(environment: [
            "IMGPROXY_WATERMARK_URL": marks.url("/wm.png").absoluteString, "IMGPROXY_WATERMARK_OPACITY": "0.5",
        ])
        let fetched = GrammarMount(prefix: "/i", grammar: ImgproxyGrammar(configuration: url, allowsUnsigned: true))
        do {
            try await ServeKit.run(configure: { $0.mounts = [fetched] }) { harness in
                harness.origin.route("/base.png", .ok(Self.base))
                let source = harness.origin.url("/base.png").absoluteString
                let response = try await harness.get("/i/_/wm:1:re/plain/\(source)")
                #expect(response.status == .ok, "\(response.text)")
                let frame = try Self.frame(response.data)
                // Half opacity everywhere: 8-pixel tiles with no gap cover the image.
                #expect(frame.pixel(x: 0, y: 0) == RGBA8(r: 128, g: 0, b: 127, a: 255))
                #expect(frame.pixel(x: 63, y: 47) == RGBA8(r: 128, g: 0, b: 127, a: 255))
                _ = try await harness.get("/i/_/wm:1:ce/plain/\(source)")
            }
            #expect(marks.requestCount(for: "/wm.png") == 1)
        } catch {
            try? await marks.shutdown()
            throw error
        }
        try await marks.shutdown()
    }

    @Test("imgproxy's watermark variables: data, path, URL, opacity, and what is refused")
    func imgproxyConfiguration() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-wm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("wm.png")
        try Self.mark.write(to: file)
        let fromPath = try ImgproxyConfiguration(environment: ["IMGPROXY_WATERMARK_PATH": file.path])
        let fromData = try ImgproxyConfiguration(environment: ["IMGPROXY_WATERMARK_DATA": Self.mark.base64EncodedString(),
                                                               "IMGPROXY_WATERMARK_PATH": "/nowhere.png"])
        #expect(fromPath.watermark == fromData.watermark)
        #expect(fromPath.watermark?.description == "bytes:\(ImgproxyConfiguration.digest(Self.mark))")
        let fromURL = try ImgproxyConfiguration(environment: ["IMGPROXY_WATERMARK_URL": "https://cdn.example.com/wm.png",
                                                              "IMGPROXY_WATERMARK_OPACITY": "0.5"])
        #expect(fromURL.watermark == .url(try #require(URL(string: "https://cdn.example.com/wm.png"))))
        #expect(fromURL.watermarkOpacity == 0.5)
        #expect(try ImgproxyConfiguration(environment: [:]).watermark == nil)
        for environment in [["IMGPROXY_WATERMARK_OPACITY": "0"], ["IMGPROXY_WATERMARK_OPACITY": "1.5"],
                            ["IMGPROXY_WATERMARK_OPACITY": "half"], ["IMGPROXY_WATERMARK_DATA": "!!!"],
                            ["IMGPROXY_WATERMARK_PATH": folder.appendingPathComponent("missing.png").path],
                            ["IMGPROXY_WATERMARK_URL": "ftp://cdn.example.com/wm.png"]] {
            #expect(throws: ImgproxyConfigurationError.self, "\(environment)") { try ImgproxyConfiguration(environment: environment) }
        }
        // The option's opacity multiplies the configured one; re makes the offsets gaps.
        let option = try ImgproxyWatermarkOption.parse("wm", ["0.5", "re", "4", "0.1"])
        let watermark = try #require(option.watermark(image: fromURL.watermark, opacity: 0.5, dpr: 2))
        #expect(watermark.opacity == 0.25)
        #expect(watermark.x == .tiled(gap: .pixels(8)) && watermark.y == .tiled(gap: .fraction(0.1)))
        #expect(option.watermark(image: nil, opacity: 1, dpr: 1) == nil)
    }
}
