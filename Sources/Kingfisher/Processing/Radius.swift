import Foundation

/// The corner radius of a round-corner or border operation: fixed, or a fraction of a side.
public enum Radius: Sendable, Hashable {
    /// A fraction of the width: 0.5 on a square makes a circle.
    case widthFraction(CGFloat)
    /// A fraction of the height.
    case heightFraction(CGFloat)
    /// A radius in points (pixels are points × the image's scale).
    case point(CGFloat)

    /// The identifier part: `w_frac_<f>`, `h_frac_<f>`, or the point value, e.g. `8.0`.
    var radiusIdentifier: String {
        switch self {
        case .widthFraction(let fraction): "w_frac_\(fraction)"
        case .heightFraction(let fraction): "h_frac_\(fraction)"
        case .point(let point): point.description
        }
    }

    /// The radius in points for a rectangle of `size` points.
    ///
    /// Not clamped: drawing clamps it to half the shorter side.
    public func compute(with size: CGSize) -> CGFloat {
        switch self {
        case .point(let point): point
        case .widthFraction(let fraction): size.width * fraction
        case .heightFraction(let fraction): size.height * fraction
        }
    }
}
