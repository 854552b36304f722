import Foundation

// Exact-pixel geometry for callers that think in pixels (an image server): every frame of an
// animation is transformed, frame durations, the loop count and the scale are kept.

extension KFCrossPlatformImage {
    /// The image resampled (Lanczos-3, premultiplied) to exactly `width` × `height` pixels.
    ///
    /// Sides below 1 count as 1; the aspect ratio is not kept. The caller bounds the size: each
    /// frame of the result takes `width × height × 4` bytes. Returns `self` when the size is unchanged.
    public func resampled(toPixelWidth width: Int, height: Int) -> KFCrossPlatformImage {
        resampled(width: max(1, width), height: max(1, height))
    }

    /// The pixels inside `rect` (in pixels, origin top left), clipped to the image.
    ///
    /// Edges are rounded to whole pixels (half away from zero). At least one pixel always remains: a
    /// rectangle that misses the image, or is empty, gives the 1×1 (or 1-wide, 1-high) strip of the
    /// image nearest to it. A non-finite edge counts as the image's own edge. Returns `self` when the
    /// rectangle covers the whole image.
    public func cropped(toPixelRect rect: CGRect) -> KFCrossPlatformImage {
        let bounds = Self.pixelBounds(rect, width: pixelWidth, height: pixelHeight)
        return cropped(x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height)
    }

    /// The image mirrored left to right (`horizontal`), top to bottom (`vertical`), or both (which is
    /// a half turn); `self` when neither.
    public func flipped(horizontal: Bool, vertical: Bool) -> KFCrossPlatformImage {
        guard horizontal || vertical else { return self }
        return transformed { $0.flipped(horizontal: horizontal, vertical: vertical) }
    }

    /// The image turned clockwise by `quarterTurns` × 90° (any integer: −1 is a quarter turn
    /// counter-clockwise, 4 is none); a quarter or three-quarter turn swaps width and height.
    public func rotated(quarterTurns: Int) -> KFCrossPlatformImage {
        switch ((quarterTurns % 4) + 4) % 4 {
        case 1: return transformed { $0.turnedQuarter(clockwise: true) }
        case 2: return transformed { $0.flipped(horizontal: true, vertical: true) }
        case 3: return transformed { $0.turnedQuarter(clockwise: false) }
        default: return self
        }
    }

    /// Every frame cropped to a rectangle that lies inside the image; `self` when it is the whole image.
    func cropped(x: Int, y: Int, width: Int, height: Int) -> KFCrossPlatformImage {
        guard x != 0 || y != 0 || width != pixelWidth || height != pixelHeight else { return self }
        return mapFrames { $0.cropped(x: x, y: y, width: width, height: height) } ?? self
    }

    /// Every frame moved by `move`, which only moves pixels, so the opacity stays.
    private func transformed(_ move: (ImageFrame) -> ImageFrame) -> KFCrossPlatformImage {
        KFCrossPlatformImage(validated: frames.map(move), loopCount: loopCount, scale: scale, isOpaque: isOpaque)
    }

    /// `rect` as whole pixels inside a `width` × `height` image, at least 1×1.
    static func pixelBounds(_ rect: CGRect, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        func edge(_ value: CGFloat, fallback: Int, limit: Int) -> Int {
            guard value.isFinite else { return fallback }
            return Int(min(max(Double(value), 0), Double(limit)).rounded())
        }
        // minX and maxX read a negative width as extending to the left (and likewise for heights).
        let left = min(edge(rect.minX, fallback: 0, limit: width), width - 1)
        let top = min(edge(rect.minY, fallback: 0, limit: height), height - 1)
        let right = max(edge(rect.maxX, fallback: width, limit: width), left + 1)
        let bottom = max(edge(rect.maxY, fallback: height, limit: height), top + 1)
        return (left, top, right - left, bottom - top)
    }
}
