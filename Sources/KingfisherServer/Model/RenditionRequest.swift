import Foundation
import Kingfisher

/// One image request as the server understands it, whichever URL grammar spelled it.
///
/// Every grammar (``ImagePath``, thumbor's, imgproxy's) parses into this model; the server then
/// fetches ``source``, runs ``operations`` in order, encodes as ``output`` at ``quality`` and answers
/// with ``headers``. The server caches a rendition under its source, operations, output and encoder
/// settings: everything that changes the bytes of the answer.
public struct RenditionRequest: Sendable, Hashable {
    /// The origin image: an http(s) URL, or a `file:` URL whose path (relative, percent-encoded)
    /// names a file below the grammar's ``RenditionGrammar/localRoot``.
    public var source: URL
    /// Fetched when ``source`` is a `file:` URL naming no file (thumbor's `file_loader_http_fallback`).
    public var fallbackSource: URL?
    /// Geometry and filters, applied in order.
    public var operations: [RenditionOperation]
    /// The format to encode to.
    public var output: RenditionOutput
    /// The encoder quality, 0...1; `nil` takes the server's default.
    public var quality: Double?
    /// Re-encode at lower qualities until the answer is at most this many bytes (lossy formats only).
    public var maxBytes: Int?
    /// What the answer's headers say beyond the defaults.
    public var headers: RenditionHeaders
    /// What becomes of transparency in a format without alpha (JPEG).
    public var alphaInOpaqueFormats: AlphaInOpaqueFormats = .compositeOverBlack
    /// Filters the URL names that the grammar knows but the server does not apply: the server
    /// logs them and counts them in `kf_serve_unsupported_filters_total`.
    public var unsupportedFilters: [String] = []

    /// A request for `source` with no operations, encoded as `output`.
    public init(source: URL, operations: [RenditionOperation] = [], output: RenditionOutput = .negotiated,
                quality: Double? = nil, maxBytes: Int? = nil, headers: RenditionHeaders = RenditionHeaders()) {
        self.source = source
        self.operations = operations
        self.output = output
        self.quality = quality
        self.maxBytes = maxBytes
        self.headers = headers
    }
}

/// How a transparent image is written to a format without alpha.
public enum AlphaInOpaqueFormats: String, Sendable, Hashable {
    /// Laid over black, as the library's JPEG encoder writes premultiplied colour.
    case compositeOverBlack
    /// The alpha channel discarded, each pixel keeping its own colour (thumbor's answer).
    case discard
}

/// One step of a rendition.
public enum RenditionOperation: Sendable, Hashable {
    /// A `ProcessorSpec` chain (the server's own grammar), as text.
    case spec(String)
    /// Geometry that depends on the source's size, resolved when the image is decoded.
    case geometry(RenditionGeometry)
    /// A geometry step that does not depend on the source's size (a rotation, a flip).
    case step(GeometryStep)
    /// A pixel filter.
    case filter(RenditionFilter)
}

/// Geometry written against the source's size: each grammar has its own sizing and rounding rules,
/// and resolves them into neutral ``GeometryStep``s once the source's pixel size is known.
public protocol RenditionGeometryRule: Sendable, Hashable, CustomStringConvertible {
    /// The steps that turn a `width`×`height` image (upright, in pixels) into the rendition's geometry.
    ///
    /// `description` must name every field that changes the result: it goes into cache keys.
    func steps(width: Int, height: Int) -> [GeometryStep]

    /// The steps for a `width`×`height` image that a trim cut out of the source at `origin`: rules
    /// that take source coordinates (a manual crop) move them by it. By default the same as
    /// ``steps(width:height:)``.
    func steps(width: Int, height: Int, trimmedAt origin: (x: Int, y: Int)) -> [GeometryStep]
}

extension RenditionGeometryRule {
    public func steps(width: Int, height: Int, trimmedAt origin: (x: Int, y: Int)) -> [GeometryStep] {
        steps(width: width, height: height)
    }
}

/// A geometry rule of any grammar, hashable by its description.
public struct RenditionGeometry: Sendable, Hashable, CustomStringConvertible {
    /// The rule.
    public let rule: any RenditionGeometryRule
    /// Wraps `rule`.
    public init(_ rule: any RenditionGeometryRule) { self.rule = rule }
    /// The rule's description.
    public var description: String { rule.description }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}

/// One resolved geometry step, in the pixels of the image as it is when the step runs.
public enum GeometryStep: Sendable, Hashable {
    /// Keep the rectangle at (`x`, `y`) of `width`×`height` (clamped to the image).
    case crop(x: Int, y: Int, width: Int, height: Int)
    /// Keep the `width`×`height` region the saliency heuristic finds most interesting.
    case smartCrop(width: Int, height: Int)
    /// Resample to exactly `width`×`height`.
    case scale(width: Int, height: Int)
    /// Mirror left-right and/or top-bottom.
    case flip(horizontal: Bool, vertical: Bool)
    /// Turn clockwise by `quarterTurns` × 90°.
    case rotate(quarterTurns: Int)
    /// Place the image with its top-left corner at (`x`, `y`) on a `width`×`height` canvas of `background`.
    case extend(width: Int, height: Int, x: Int, y: Int, background: RenditionColor)
    /// Place the image with its top-left corner at (`x`, `y`) on a `width`×`height` canvas painted
    /// by `fill`: drawn over it when `blends`, else its pixels (transparent ones too) replace the canvas's.
    case fill(width: Int, height: Int, x: Int, y: Int, fill: RenditionFill, blends: Bool)
}

/// A pixel filter of a rendition.
public enum RenditionFilter: Sendable, Hashable {
    /// Gaussian blur of standard deviation `sigma` pixels.
    case blur(sigma: Double)
    /// Unsharp mask of standard deviation `sigma` pixels.
    case sharpen(sigma: Double)
    /// Luma grey (Rec. 601 weights), alpha kept.
    case grayscale
    /// thumbor's brightness: `255 × amount / 100` added to each colour channel (amount −100...100).
    case brightness(Int)
    /// thumbor's contrast (amount −100...100).
    case contrast(Int)
    /// Corners cut with radii `horizontal`×`vertical`, painted `color` (transparent when `color.alpha` is 0).
    case roundCorner(horizontal: Int, vertical: Int, color: RenditionColor)
    /// Transparent pixels composited onto `color`.
    case background(RenditionColor)
    /// Padding of the given pixels on each side, of `color`.
    case pad(top: Int, right: Int, bottom: Int, left: Int, color: RenditionColor)
    /// Another image drawn over this one.
    case watermark(RenditionWatermark)
    /// Borders of the colour of one corner pixel cut off: every row and column whose pixels are all
    /// within `tolerance` (Euclidean distance of the channels) of it. Geometry after it is resolved
    /// against the trimmed image.
    case trim(corner: TrimCorner, tolerance: Int)
}

/// The corner whose pixel gives the colour ``RenditionFilter/trim(corner:tolerance:)`` cuts off.
public enum TrimCorner: String, Sendable, Hashable {
    /// The first pixel.
    case topLeft = "top-left"
    /// The last pixel.
    case bottomRight = "bottom-right"
}

/// A colour of the request, straight (not premultiplied) 8-bit RGBA.
public struct RenditionColor: Sendable, Hashable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8
    /// A colour from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }
    /// Opaque white.
    public static let white = RenditionColor(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RenditionColor(red: 0, green: 0, blue: 0)
    /// Fully transparent.
    public static let clear = RenditionColor(red: 0, green: 0, blue: 0, alpha: 0)
    /// `#rrggbbaa`.
    public var description: String {
        "#" + [red, green, blue, alpha].map { String(format: "%02x", $0) }.joined()
    }
}

/// The format a rendition is encoded to.
public enum RenditionOutput: Sendable, Hashable {
    /// Always this format.
    case fixed(ImageFormat)
    /// By the client's `Accept` (see ``OutputFormat/auto``), answered with `Vary: Accept`.
    case negotiated
    /// The source's own format when the server writes it (HEIC becomes JPEG), as thumbor and
    /// imgproxy answer by default; an animation stays animated.
    case source
    /// The first of these formats the client's `Accept` names (a still image only), else the
    /// source's format as ``source``; answered with `Vary: Accept` (thumbor's `AUTO_WEBP`/`AUTO_AVIF`).
    case sourceOrAccepted([ImageFormat])
}

/// Headers of a rendition's answer that a grammar can change.
public struct RenditionHeaders: Sendable, Hashable {
    /// `Cache-Control: max-age` in seconds; `nil` takes the server's.
    public var maxAge: Int?
    /// `Content-Disposition` file name stem (the extension follows the output), or `nil` for none.
    public var fileName: String?
    /// `attachment` instead of `inline` in `Content-Disposition`.
    public var attachment: Bool
    /// The request is refused with 404 after this time (imgproxy's `exp`).
    public var expires: Date?
    /// Headers set on every answer of this grammar (a `Content-Security-Policy`, say).
    public var extra: [String: String]

    /// No change from the server's defaults.
    public init(maxAge: Int? = nil, fileName: String? = nil, attachment: Bool = false, expires: Date? = nil,
                extra: [String: String] = [:]) {
        self.maxAge = maxAge
        self.fileName = fileName
        self.attachment = attachment
        self.expires = expires
        self.extra = extra
    }
}
