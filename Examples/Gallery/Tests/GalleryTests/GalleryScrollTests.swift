import Foundation
import GalleryKit
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims
import KingfisherTestServer
import Testing

/// The gallery with 500 generated images, scrolled from top to bottom and back: GTK's grid
/// recycles its cells all the way, the case latest-wins exists for.
@MainActor
@Suite(.serialized)
struct GalleryScrollTests {
    /// Resident memory of this process, in bytes.
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Whether `cell` is drawn in its URL's colour (the generated images are flat).
    static func showsOwnColour(_ cell: GalleryCell, urls: [URL]) -> (Bool, String) {
        guard let url = cell.url, let index = urls.firstIndex(of: url) else { return (false, "unbound") }
        guard let image = WidgetSnapshot.render(cell.visibleView), image.pixelWidth > 0 else {
            return (false, "\(url.lastPathComponent): not rendered")
        }
        let expected = GalleryImages.colour(for: index)
        guard let pixel = image.frames[0].pixel(x: image.pixelWidth / 2, y: image.pixelHeight / 2) else {
            return (false, "\(url.lastPathComponent): no centre pixel")
        }
        let close = abs(Int(pixel.r) - Int(expected.r)) <= 3 && abs(Int(pixel.g) - Int(expected.g)) <= 3
            && abs(Int(pixel.b) - Int(expected.b)) <= 3
        return (close, "\(url.lastPathComponent): \(pixel) expected \(expected)")
    }

    @Test func everyVisibleCellShowsItsOwnImageWhileScrollingDownAndBack() async throws {
        _ = try GTKMainLoop.initialize()
        let server = try await TestHTTPServer.start()
        let urls = GalleryImages.serveGenerated(count: 500, on: server, gradient: false)
        #expect(urls.count == 500)
        let memoryLimit = 32 * 1024 * 1024
        let cache = ImageCache(name: "gallery-test-\(UUID().uuidString)")
        cache.memoryStorage.config.totalCostLimit = memoryLimit
        defer { cache.clearDiskCache() }
        let gallery = GalleryWindow(urls: urls, cellSize: 96, cache: cache, width: 640, height: 480)
        gallery.present()
        defer { gtk_window_destroy(kf_gtk_window(gallery.window)) }
        let residentAtStart = Self.residentBytes()

        var offsets: [Double] = []
        var checkedCells = 0
        var stale: [String] = []
        func settleAndCheck() async throws {
            let settled = await GTKMainLoop.drive(until: { gallery.visibleCellsShowTheirImages }, limit: .seconds(30))
            try #require(settled, "cells still loading at offset \(gallery.scrollOffset)")
            // One more frame, so every cell's last change has been drawn.
            _ = await WidgetSnapshot.renderAfterNextFrame(gallery.window)
            for cell in gallery.visibleCells {
                let (ok, detail) = Self.showsOwnColour(cell, urls: urls)
                checkedCells += 1
                if !ok { stale.append(detail) }
            }
        }

        try await settleAndCheck()
        let (maximum, page) = gallery.scrollRange
        #expect(maximum > page * 10, "500 cells make a long grid")
        var offset = 0.0
        while offset < maximum {
            offset = min(maximum, offset + page * 0.75)
            offsets.append(offset)
        }
        for value in offsets + offsets.reversed().dropFirst() + [0] {
            gallery.scrollOffset = value
            try await settleAndCheck()
        }
        let staleCount = stale.count
        #expect(staleCount == 0, "cells not showing their own URL's image: \(stale.prefix(5))")
        #expect(checkedCells > 500, "every position checks a screenful of cells")

        // Every load the grid started ends exactly once (the superseded ones included).
        let allEnded = await GTKMainLoop.drive(until: { gallery.completionCounts.allSatisfy { $0 == 1 } }, limit: .seconds(30))
        #expect(allEnded)
        #expect(gallery.completionCounts.allSatisfy { $0 <= 1 }, "a load completed twice")
        #expect(gallery.requestsStarted >= 500)
        #expect(!gallery.visibleCells.contains { $0.imageView.isSpinnerAnimating })

        // Memory: the cache holds at most its limit of decoded pixels; the margin covers GTK's
        // textures and render buffers for the bound cells and the window.
        #expect(cache.memoryStorage.totalCost <= memoryLimit)
        let growth = Self.residentBytes() - residentAtStart
        let margin = 96 * 1024 * 1024
        #expect(growth <= memoryLimit + margin, "resident memory grew by \(growth / 1_048_576) MB")
        print("gallery scroll: \(offsets.count * 2 + 1) positions, \(checkedCells) cells checked, \(gallery.requestsStarted) loads, resident growth \(growth / 1_048_576) MB")
        try await server.shutdown()
    }
}
