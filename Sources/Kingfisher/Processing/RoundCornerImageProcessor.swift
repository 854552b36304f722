import Foundation

/// Rounds the corners of an image, with anti-aliased edges, optionally resizing it first and
/// filling the cut-off parts with a colour.
///
/// The corners outside the arcs become transparent, or `backgroundColor` when one is given (then
/// the whole image is composited over that colour, so an opaque colour gives an opaque result).
/// The radius is clamped to half the shorter side: `.widthFraction(0.5)` on a square makes a
/// circle. With `targetSize` the image is first stretched to that size in points, as Kingfisher
/// draws it; append nothing else to keep the aspect ratio, or put a ``ResizingImageProcessor`` and
/// a ``CroppingImageProcessor`` before this one. Animated images are rounded frame by frame.
///
/// Transparent corners need a format with alpha in the disk cache: JPEG drops them, so use
/// `FormatIndicatedCacheSerializer.png` when the original is a JPEG.
public struct RoundCornerImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.RoundCornerImageProcessor(<radius>[_<targetSize>][_corner(<bits>)])`
    /// then `_<#RRGGBBAA>` with a background colour; e.g.
    /// `com.onevcat.Kingfisher.RoundCornerImageProcessor(w_frac_0.5_(100.0, 50.0)_corner(3))_#FF0000FF`.
    public let identifier: String

    /// The corner radius: points, or a fraction of the output's width or height.
    public let radius: Radius

    /// The corners that are rounded; the others stay square.
    public let roundingCorners: RectCorner

    /// The size of the output in points; `nil` keeps the image's size.
    public let targetSize: CGSize?

    /// The colour behind the image and in the cut-off corners; `nil` leaves them transparent.
    public let backgroundColor: KFCrossPlatformColor?

    /// A processor with a radius in points; see ``init(radius:targetSize:roundingCorners:backgroundColor:)``.
    public init(cornerRadius: CGFloat, targetSize: CGSize? = nil, roundingCorners corners: RectCorner = .all,
                backgroundColor: KFCrossPlatformColor? = nil) {
        self.init(radius: .point(cornerRadius), targetSize: targetSize, roundingCorners: corners,
                  backgroundColor: backgroundColor)
    }

    /// A processor that rounds `corners` with `radius` on an output of `targetSize` points (or the
    /// image's own size), over `backgroundColor` if given.
    public init(radius: Radius, targetSize: CGSize? = nil, roundingCorners corners: RectCorner = .all,
                backgroundColor: KFCrossPlatformColor? = nil) {
        self.radius = radius
        self.targetSize = targetSize
        self.roundingCorners = corners
        self.backgroundColor = backgroundColor
        var identifier = "com.onevcat.Kingfisher.RoundCornerImageProcessor(\(radius.radiusIdentifier)"
        if let targetSize {
            identifier += "_\(targetSize.identifierDescription)"
        }
        identifier += "\(corners.cornerIdentifier))"
        if let backgroundColor {
            identifier += "_\(backgroundColor.hex)"
        }
        self.identifier = identifier
    }

    /// The image at `options.scaleFactor`, resized to `targetSize` if set, with its corners rounded;
    /// `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = item.decodedImage(options: options) else { return nil }
        let scaled = image.kf.scaled(to: options.scaleFactor)
        return scaled.kf.image(withRadius: radius, fit: targetSize ?? scaled.size,
                               roundingCorners: roundingCorners, backgroundColor: backgroundColor)
    }
}
