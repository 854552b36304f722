import Foundation

/// Draws a border inside the edge of an image, optionally with rounded corners.
///
/// The border covers `lineWidth` points from each edge (it is stroked on a path inset by half the
/// line width, as Kingfisher strokes it), so the image keeps its size. Curved edges are
/// anti-aliased; pixels outside a rounded corner of the border keep the image, so put a
/// ``RoundCornerImageProcessor`` with the same radius before this one to cut them away. Animated
/// images get the border on every frame.
public struct BorderImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.BorderImageProcessor(<color>_<lineWidth>_<radius>_<corners>)`, e.g.
    /// `com.onevcat.Kingfisher.BorderImageProcessor((0,0,0,255)_4.0_0.0_)`.
    public var identifier: String {
        "com.onevcat.Kingfisher.BorderImageProcessor(\(border.identifier))"
    }

    /// The border drawn.
    public let border: Border

    /// A processor that draws `border`.
    public init(border: Border) {
        self.border = border
    }

    /// The image at `options.scaleFactor` with the border drawn; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = DefaultImageProcessor.default.process(item: item, options: options) else { return nil }
        return image.kf.addingBorder(border)
    }
}
