import Foundation

/// Which corners of a rectangle a round-corner or border operation rounds.
public struct RectCorner: OptionSet, Sendable, Hashable {
    /// The bits: top left 1, top right 2, bottom left 4, bottom right 8.
    public let rawValue: Int

    /// The top left corner.
    public static let topLeft = RectCorner(rawValue: 1 << 0)
    /// The top right corner.
    public static let topRight = RectCorner(rawValue: 1 << 1)
    /// The bottom left corner.
    public static let bottomLeft = RectCorner(rawValue: 1 << 2)
    /// The bottom right corner.
    public static let bottomRight = RectCorner(rawValue: 1 << 3)
    /// All four corners.
    public static let all: RectCorner = [.topLeft, .topRight, .bottomLeft, .bottomRight]

    /// A set of corners from its bits; bits above the four corners are kept but mean nothing.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The identifier part: empty for `.all`, otherwise `_corner(<rawValue>)`.
    var cornerIdentifier: String {
        self == .all ? "" : "_corner(\(rawValue))"
    }
}
