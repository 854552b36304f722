import Foundation

// Kingfisher builds identifiers by interpolating `CGSize` and `CGPoint`, which on Apple platforms read
// "(200.0, 100.0)"; Foundation on Linux describes them differently ("CGSize(width: ...)"). These
// spell them the Apple way so identifiers, and so cache keys, match Kingfisher's.

extension CGSize {
    /// `"(width, height)"`, as Apple platforms describe a size: `"(200.0, 100.0)"`.
    var identifierDescription: String { "(\(width.description), \(height.description))" }
}

extension CGPoint {
    /// `"(x, y)"`, as Apple platforms describe a point: `"(0.5, 0.5)"`.
    var identifierDescription: String { "(\(x.description), \(y.description))" }
}
