import Foundation

/// A distance along one side of the image a watermark is placed on.
public enum WatermarkOffset: Sendable, Hashable, CustomStringConvertible {
    /// This many pixels.
    case pixels(Int)
    /// This share of the image's side (0.1 of a 500-pixel width is 50 pixels, halves rounded away from zero).
    case fraction(Double)

    /// The offset in pixels on a side of `length` pixels.
    public func pixels(along length: Int) -> Int {
        switch self {
        case .pixels(let value):
            return value
        case .fraction(let share):
            let value = (Double(length) * share).rounded(.toNearestOrAwayFromZero)
            guard value.isFinite else { return 0 }
            return Int(min(max(value, -Double(Int32.max)), Double(Int32.max)))
        }
    }

    /// `12` for pixels, `0.1f` for a fraction.
    public var description: String {
        switch self {
        case .pixels(let value): return "\(value)"
        case .fraction(let share): return "\(share)f"
        }
    }
}

/// Where copies of a watermark go along one axis of the image (horizontally or vertically).
public enum WatermarkAxis: Sendable, Hashable, CustomStringConvertible {
    /// One copy, this far from the left (or top) edge; negative moves it past the edge.
    case start(WatermarkOffset)
    /// One copy whose far side is this far from the right (or bottom) edge.
    case end(WatermarkOffset)
    /// One copy centred (the free space halved, rounded towards zero), then moved by the offset.
    case center(WatermarkOffset)
    /// As many whole copies as fit, from the start edge, the space left over shared out evenly
    /// between them (when fewer than two fit: as many as it takes to reach across, 10 pixels
    /// apart). When both axes spread and that makes more than 100 copies, each axis takes at most 6.
    case spread
    /// Copies every watermark-side-plus-`gap` pixels, the pattern centred on the image and
    /// covering it, each copy in the middle of its cell.
    case tiled(gap: WatermarkOffset)

    /// `start(12)`, `end(0.1f)`, `center(0)`, `spread`, `tiled(10)`.
    public var description: String {
        switch self {
        case .start(let offset): return "start(\(offset))"
        case .end(let offset): return "end(\(offset))"
        case .center(let offset): return "center(\(offset))"
        case .spread: return "spread"
        case .tiled(let gap): return "tiled(\(gap))"
        }
    }

    /// Whether this axis spreads copies edge to edge.
    var isSpread: Bool { if case .spread = self { return true } else { return false } }

    /// The positions of the copies of a `mark`-pixel watermark on a `length`-pixel side.
    /// `capSpread` limits a spreading axis to 6 copies (see ``spread``).
    func positions(length: Int, mark: Int, capSpread: Bool = false) -> [Int] {
        let mark = max(mark, 1)
        switch self {
        case .start(let offset):
            return [offset.pixels(along: length)]
        case .end(let offset):
            return [length - mark - offset.pixels(along: length)]
        case .center(let offset):
            return [(length - mark) / 2 + offset.pixels(along: length)]
        case .spread:
            var (count, spare) = Self.spreadCount(length: length, mark: mark)
            if capSpread {
                count = min(6, count)
                spare = length - count * mark
            }
            let space = Self.floorDivide(spare, max(count, 2) - 1)
            return (0..<count).map { $0 * (space + mark) }
        case .tiled(let gap):
            let cell = max(1, mark + max(0, gap.pixels(along: length)))
            let inset = (cell - mark) / 2
            var across = (length + cell - 1) / cell
            if across % 2 == 0 { across += 1 }
            let shift = (across * cell - length) / 2
            return (0..<across).map { $0 * cell - shift + inset }
        }
    }

    /// How many copies ``spread`` lays and the pixels left between them, before any cap.
    static func spreadCount(length: Int, mark: Int) -> (count: Int, spare: Int) {
        let mark = max(mark, 1)
        guard length >= 2 * mark else { return ((length + mark - 1) / mark, 10) }
        return (length / mark, length % mark)
    }

    private static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// How big a watermark is drawn, relative to the image it goes on.
public struct WatermarkScale: Sendable, Hashable, CustomStringConvertible {
    /// The share of the image's width the watermark may take, or `nil` for no limit from the width.
    public var width: Double?
    /// The share of the image's height the watermark may take, or `nil` for no limit from the height.
    public var height: Double?

    /// A watermark fitted (keeping its aspect ratio, enlarged or reduced) inside `width` × `height`
    /// of the image; with only one given, the watermark takes exactly that share of that side.
    public init(width: Double? = nil, height: Double? = nil) {
        self.width = width.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        self.height = height.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// The watermark's own size.
    public static let original = WatermarkScale()

    /// `original`, or `fit(W,H)` with `-` for a side not given.
    public var description: String {
        guard width != nil || height != nil else { return "original" }
        return "fit(\(width.map { "\($0)" } ?? "-"),\(height.map { "\($0)" } ?? "-"))"
    }

    /// The pixel size of a `markWidth` × `markHeight` watermark on an `imageWidth` × `imageHeight`
    /// image; halves are rounded to even, sides are at least 1.
    func size(markWidth: Int, markHeight: Int, imageWidth: Int, imageHeight: Int) -> (width: Int, height: Int) {
        guard width != nil || height != nil, markWidth > 0, markHeight > 0 else { return (markWidth, markHeight) }
        let markWidth = Double(markWidth), markHeight = Double(markHeight)
        let boxWidth = width.map { Double(imageWidth) * $0 } ?? markWidth * Double(imageHeight) * (height ?? 1) / markHeight
        let boxHeight = height.map { Double(imageHeight) * $0 } ?? markHeight * boxWidth / markWidth
        let result: (Double, Double)
        if markWidth / boxWidth >= markHeight / boxHeight {
            result = (boxWidth, markHeight * boxWidth / markWidth)
        } else {
            result = (markWidth * boxHeight / markHeight, boxHeight)
        }
        func side(_ value: Double) -> Int {
            let rounded = value.rounded(.toNearestOrEven)
            return rounded.isFinite ? Int(min(max(rounded, 1), Double(Int32.max))) : 1
        }
        return (side(result.0), side(result.1))
    }
}
