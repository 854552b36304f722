import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims

/// Scrolls the gallery from top to bottom (images not cached yet) and back up (cached) at a steady
/// speed on the frame clock, measuring each frame's main-thread CPU time with a ``FrameProbe``, then
/// prints one line per pass and calls `done`.
@MainActor
public final class GalleryBenchmark {
    private let gallery: GalleryWindow
    private let speed: Double
    private var ticker: FrameTicker?
    private var probe = FrameProbe()
    private var lastTime: Int64?
    private var passes: [(name: String, probe: FrameProbe, hits: (requested: Int, shown: Int))] = []

    /// A benchmark of `gallery` scrolling `speed` points per second.
    public init(gallery: GalleryWindow, speed: Double = 1500) {
        self.gallery = gallery
        self.speed = speed
    }

    /// Waits for the first screen to load, then runs both passes and calls `done` with the report.
    public func run(done: @escaping @MainActor (String) -> Void) {
        gallery.whenCellsShowTheirImages(limit: 60) { [self] _ in
            self.scroll(down: true) {
                self.scroll(down: false) {
                    done(self.report())
                }
            }
        }
    }

    private func scroll(down: Bool, then next: @escaping @MainActor () -> Void) {
        probe = FrameProbe()
        let hitsBefore = (gallery.memoryHitsRequested, gallery.memoryHitsShownAtOnce)
        probe.start(on: gallery.grid)
        lastTime = nil
        ticker = FrameTicker(widget: gallery.grid) { [weak self] time in
            guard let self else { return false }
            defer { self.lastTime = time }
            guard let last = self.lastTime else { return true }
            let step = self.speed * Double(time - last) / 1_000_000
            let range = self.gallery.scrollRange.maximum
            let target = down ? min(range, self.gallery.scrollOffset + step) : max(0, self.gallery.scrollOffset - step)
            self.gallery.scrollOffset = target
            guard down ? target >= range : target <= 0 else { return true }
            self.probe.stop()
            let hits = (self.gallery.memoryHitsRequested - hitsBefore.0, self.gallery.memoryHitsShownAtOnce - hitsBefore.1)
            self.passes.append((down ? "down, uncached" : "up, cached", self.probe, hits))
            self.ticker = nil
            next()
            return false
        }
    }

    private func report() -> String {
        passes.map { pass in
            let frames = pass.probe.frameWork
            let over = frames.filter { $0 > 8 }.count
            return String(format: "gallery bench: %@: %d frames, main-thread CPU per frame median %.2f ms, p99 %.2f ms, max %.2f ms, %d over 8 ms; memory hits shown in the frame they were asked for: %d of %d",
                          pass.name, frames.count, pass.probe.quantile(0.5), pass.probe.quantile(0.99),
                          frames.max() ?? 0, over, pass.hits.shown, pass.hits.requested)
        }.joined(separator: "\n")
    }
}
