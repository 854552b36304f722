/// thumbor's geometry for one request: every field of its URL and filters that moves or sizes pixels.
///
/// ``steps(width:height:)`` replays thumbor's `Transformer` (manual crop, target size, focal point,
/// fit-in or crop-then-resize, flips) followed by the geometric post-transform filters in URL order,
/// with thumbor's own arithmetic and rounding, so the answer has thumbor's exact pixel size.
public struct ThumborGeometry: RenditionGeometryRule {
    /// A requested side: a number of pixels (0 = follow the other side or the source) or `orig`.
    public enum Size: Sendable, Hashable, CustomStringConvertible {
        /// This many pixels; 0 means "not given".
        case pixels(Int)
        /// `orig`: the source's side.
        case original

        public var description: String {
            switch self {
            case .pixels(let value): return String(value)
            case .original: return "orig"
            }
        }
    }

    /// `halign`.
    public enum HorizontalAlignment: String, Sendable, Hashable { case left, center, right }
    /// `valign`.
    public enum VerticalAlignment: String, Sendable, Hashable { case top, middle, bottom }

    /// A rectangle by its edges, in source pixels (`AxB:CxD`, `focal(LxT:RxB)`).
    public struct Edges: Sendable, Hashable, CustomStringConvertible {
        /// The left edge (inclusive).
        public var left: Int
        /// The top edge (inclusive).
        public var top: Int
        /// The right edge (exclusive).
        public var right: Int
        /// The bottom edge (exclusive).
        public var bottom: Int
        /// The rectangle from (`left`, `top`) to (`right`, `bottom`).
        public init(left: Int, top: Int, right: Int, bottom: Int) {
            self.left = left
            self.top = top
            self.right = right
            self.bottom = bottom
        }
        public var description: String { "\(left)x\(top):\(right)x\(bottom)" }
    }

    /// A post-transform filter that changes the geometry, run in URL order after the flips.
    public enum PostStep: Sendable, Hashable, CustomStringConvertible {
        /// `rotate(D)`: counter-clockwise by `degrees`, a multiple of 90.
        case rotate(degrees: Int)
        /// `upscale()`: enlarge to fit the requested box when the image is smaller on both sides.
        case upscale
        /// `fill(C[,fill_transparent])`: centre on a canvas of the requested size painted by `fill`,
        /// the image's transparent pixels kept unless `fillTransparent`.
        case fill(RenditionFill, fillTransparent: Bool)
        /// `proportion(F)`: scale both sides by `factor` (0 < factor ≤ 1).
        case proportion(factor: Double)

        public var description: String {
            switch self {
            case .rotate(let degrees): return "rotate(\(degrees))"
            case .upscale: return "upscale()"
            case .fill(let fill, let fillTransparent): return "fill(\(fill),\(fillTransparent))"
            case .proportion(let factor): return "proportion(\(factor))"
            }
        }
    }

    /// Requested width.
    public var width: Size = .pixels(0)
    /// Requested height.
    public var height: Size = .pixels(0)
    /// `-W`: mirror left-right after resizing.
    public var flipHorizontally = false
    /// `-H`: mirror top-bottom after resizing.
    public var flipVertically = false
    /// `fit-in` (or one of its variants).
    public var fitIn = false
    /// `full-`: cover the box instead of fitting inside it.
    public var full = false
    /// `adaptive-`: swap the box's sides when its orientation differs from the image's.
    public var adaptive = false
    /// `trim[:corner][:tolerance]` as written; the grammar trims before this geometry runs.
    public var trim: String?
    /// Manual crop `AxB:CxD`, applied first.
    public var crop: Edges?
    /// `halign`.
    public var horizontalAlignment = HorizontalAlignment.center
    /// `valign`.
    public var verticalAlignment = VerticalAlignment.middle
    /// `smart`: with no detectors (thumbor's default) it crops like the alignment.
    public var smart = false
    /// `no_upscale()`: the requested sides are capped by the source's.
    public var noUpscale = false
    /// `stretch()`: resize to the requested size without cropping.
    public var stretch = false
    /// `focal(LxT:RxB)` rectangles, in source pixels.
    public var focalRegions: [Edges] = []
    /// Geometric post-transform filters, in URL order.
    public var postSteps: [PostStep] = []

    /// No resizing: the source as it is.
    public init() {}

    public var description: String {
        let flips = (flipHorizontally ? "h" : "") + (flipVertically ? "v" : "")
        let fit = fitIn ? (adaptive ? "adaptive-" : "") + (full ? "full-" : "") + "fit-in" : "none"
        let fields = [
            "size=\(width)x\(height)", "flip=\(flips)", "fit=\(fit)", "trim=\(trim ?? "")",
            "crop=\(crop?.description ?? "")", "align=\(horizontalAlignment.rawValue),\(verticalAlignment.rawValue)",
            "smart=\(smart)", "no_upscale=\(noUpscale)", "stretch=\(stretch)",
            "focal=\(focalRegions.map(\.description).joined(separator: ";"))",
            "post=\(postSteps.map(\.description).joined(separator: ":"))",
        ]
        return "thumbor(" + fields.joined(separator: " ") + ")"
    }
}
