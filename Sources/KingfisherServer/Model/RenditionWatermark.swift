import Foundation
import Kingfisher

/// A watermark of a rendition: which image, where, how big and how opaque.
///
/// The server fetches a ``Image/url(_:)`` watermark as it fetches sources (the allow-list, the
/// address rules, redirects vetted, kept in the memory and disk caches) before it renders, and
/// draws it with ``WatermarkImageProcessor``'s compositing.
public struct RenditionWatermark: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where the watermark image comes from.
    public enum Image: Sendable, Hashable, CustomStringConvertible {
        /// Fetched from this URL.
        case url(URL)
        /// These encoded bytes (a server's own watermark); `digest` names them in cache keys.
        case bytes(Data, digest: String)

        /// The URL, or `bytes:<digest>`.
        public var description: String {
            switch self {
            case .url(let url): return url.absoluteString
            case .bytes(_, let digest): return "bytes:\(digest)"
            }
        }
    }

    /// The image.
    public var image: Image
    /// How opaque it is drawn, 0...1 (multiplying its alpha).
    public var opacity: Double
    /// Where the copies go across the image.
    public var x: WatermarkAxis
    /// Where the copies go down the image.
    public var y: WatermarkAxis
    /// How big it is drawn.
    public var scale: WatermarkScale
    /// How ``opacity`` acts: `false` multiplies the watermark's alpha by it (imgproxy's way); `true`
    /// subtracts `255 × (100 − 100 × opacity) / 100` (whole numbers, rounded down) from every
    /// pixel's alpha, as thumbor's `watermark()` does, so partly transparent edges fade faster.
    public var subtractsAlpha: Bool

    /// A watermark of `image`.
    public init(image: Image, opacity: Double, x: WatermarkAxis, y: WatermarkAxis, scale: WatermarkScale = .original,
                subtractsAlpha: Bool = false) {
        self.image = image
        self.opacity = opacity
        self.x = x
        self.y = y
        self.scale = scale
        self.subtractsAlpha = subtractsAlpha
    }

    /// Every field, for cache keys.
    public var description: String {
        "watermark(\(image),\(opacity),\(x),\(y),\(scale)\(subtractsAlpha ? ",subtract" : ""))"
    }
    /// The same as ``description``.
    public var debugDescription: String { description }
}

/// What fills the canvas around an image that ``GeometryStep/fill(width:height:x:y:fill:blends:)`` places.
public enum RenditionFill: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// One colour.
    case color(RenditionColor)
    /// The average colour of the image's pixels (thumbor's `fill(auto)`).
    case average
    /// The image itself blurred by a Gaussian of `sigma` pixels and stretched to the canvas
    /// (thumbor's `fill(blur)`).
    case blurred(sigma: Double)

    /// `#rrggbbaa`, `average` or `blurred(S)`.
    public var description: String {
        switch self {
        case .color(let color): return color.description
        case .average: return "average"
        case .blurred(let sigma): return "blurred(\(sigma))"
        }
    }
    /// The same as ``description``.
    public var debugDescription: String { description }
}
