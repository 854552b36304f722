import Foundation

/// How ``BorderImageProcessor`` draws a border: colour, width, and the rounding of its corners.
public struct Border: Sendable, Hashable {
    /// The colour of the border; its alpha makes the border translucent.
    public var color: KFCrossPlatformColor
    /// The width in points, measured inwards from the image's edge.
    public var lineWidth: CGFloat
    /// The corner radius. Fractions are of the rectangle the stroke's centre line follows (the
    /// image inset by half the line width on each side), as in Kingfisher.
    public var radius: Radius
    /// The corners that are rounded; the others stay square.
    public var roundingCorners: RectCorner

    /// A border; by default 4 points of opaque black with square corners.
    public init(color: KFCrossPlatformColor = .black, lineWidth: CGFloat = 4, radius: Radius = .point(0),
                roundingCorners: RectCorner = .all) {
        self.color = color
        self.lineWidth = lineWidth
        self.radius = radius
        self.roundingCorners = roundingCorners
    }

    /// `<rgbaDescription>_<lineWidth>_<radius>_<corners>`, e.g. `(0,0,0,255)_4.0_0.0_`.
    var identifier: String {
        "\(color.rgbaDescription)_\(lineWidth)_\(radius.radiusIdentifier)_\(roundingCorners.cornerIdentifier)"
    }
}
