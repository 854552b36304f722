import Foundation
import GalleryKit
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims
import KingfisherTestServer
import Testing

/// The gallery showing AVIF, HEIC and JPEG XL: the repository's samples load, and a flat-coloured
/// AVIF and HEIC are drawn in their colour.
///
/// `Fixtures/flat.avif` and `Fixtures/flat.heic` are a 64×64 image of (200, 80, 40), made by
/// `avifenc --min 10 --max 10` and `heif-enc -q 90` from a PNG; avifdec decodes the first to
/// (200, 79, 40) and heif-convert the second to (199, 80, 40).
@MainActor
@Suite(.serialized)
struct GalleryFormatTests {
    static let colour = (r: 200, g: 80, b: 40)

    /// The repository's `Samples` folder.
    static let samples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Samples")

    @Test func avifAndHEICCellsShowTheirPixelsAndTheSamplesLoad() async throws {
        _ = try GTKMainLoop.initialize()
        let server = try await TestHTTPServer.start()
        var urls = try GalleryImages.serveFolder(Self.samples, on: server)
        let names = Set(urls.map(\.lastPathComponent))
        #expect(names.isSuperset(of: ["sample.avif", "sample.heic", "sample.jxl"]), "\(names)")
        for name in ["flat.avif", "flat.heic"] {
            let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
            server.route("/flat/\(name)", .ok(try Data(contentsOf: url)))
            urls.append(server.url("/flat/\(name)"))
        }
        let cache = ImageCache(name: "gallery-formats-\(UUID().uuidString)")
        defer { cache.clearDiskCache() }
        // A window large enough that every cell is visible at once.
        let gallery = GalleryWindow(urls: urls, cellSize: 96, cache: cache, width: 900, height: 700)
        gallery.present()
        defer { gtk_window_destroy(kf_gtk_window(gallery.window)) }

        let settled = await GTKMainLoop.drive(until: {
            gallery.visibleCells.count == urls.count && gallery.visibleCellsShowTheirImages
        }, limit: .seconds(30))
        let pending = gallery.boundCells.filter { !$0.isShowingItsImage }.compactMap { $0.url?.lastPathComponent }
        try #require(settled, "cells not showing their image: \(pending)")
        _ = await WidgetSnapshot.renderAfterNextFrame(gallery.window)

        for name in ["flat.avif", "flat.heic"] {
            let cell = try #require(gallery.visibleCells.first { $0.url?.lastPathComponent == name })
            let image = try #require(WidgetSnapshot.render(cell.visibleView), "\(name) not rendered")
            let pixel = try #require(image.frames[0].pixel(x: image.pixelWidth / 2, y: image.pixelHeight / 2))
            let close = abs(Int(pixel.r) - Self.colour.r) <= 3 && abs(Int(pixel.g) - Self.colour.g) <= 3
                && abs(Int(pixel.b) - Self.colour.b) <= 3
            #expect(close, "\(name): \(pixel), expected \(Self.colour)")
        }
        try await server.shutdown()
    }
}
