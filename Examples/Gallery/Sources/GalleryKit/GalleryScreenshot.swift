import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims

extension GalleryWindow {
    /// Renders the whole window as it looks now and writes it to `file` as PNG.
    public func saveScreenshot(to file: URL) throws {
        guard let image = WidgetSnapshot.render(window) else {
            throw GalleryError.screenshotFailed("the window is not on screen")
        }
        guard let data = image.kf.pngRepresentation() else {
            throw GalleryError.screenshotFailed("the window's pixels could not be encoded as PNG")
        }
        try data.write(to: file)
    }

    /// Calls `ready` on the main actor once every visible cell shows its own image (checked after each
    /// GTK frame), or with `false` when `limit` passes first.
    public func whenCellsShowTheirImages(limit: TimeInterval, _ ready: @escaping @MainActor (Bool) -> Void) {
        let deadline = Date().addingTimeInterval(limit)
        var settled = 0
        let ticker = FrameTicker(widget: grid) { [weak self] _ in
            guard let self else { return false }
            // Two frames in a row settled: the last fade has been drawn.
            settled = self.visibleCellsShowTheirImages ? settled + 1 : 0
            if settled >= 2 {
                ready(true)
                return false
            }
            if Date() > deadline {
                let waiting = self.visibleCells.filter { !$0.isShowingItsImage }
                for cell in waiting {
                    FileHandle.standardError.write(Data("gallery: still waiting for \(cell.url?.absoluteString ?? "?") (loaded: \(cell.loadedURL != nil), fading: \(cell.imageView.fadeProgress != nil))\n".utf8))
                }
                ready(false)
                return false
            }
            return true
        }
        screenshotTicker = ticker
    }
}

/// Why the gallery could not do what it was asked.
public enum GalleryError: Error, CustomStringConvertible {
    /// The screenshot could not be taken.
    case screenshotFailed(String)
    /// The command line was not understood.
    case usage(String)

    public var description: String {
        switch self {
        case .screenshotFailed(let reason): return "cannot take the screenshot: \(reason)"
        case .usage(let reason): return reason
        }
    }
}
