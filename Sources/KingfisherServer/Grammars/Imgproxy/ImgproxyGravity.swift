/// Where imgproxy anchors a crop or an extension: a compass point with offsets, `sm` (saliency) or a
/// focus point.
public struct ImgproxyGravity: Sendable, Hashable, CustomStringConvertible {
    /// The gravity types of imgproxy's `g`, `c` and `ex` options.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The centre (the default).
        case center = "ce"
        /// A compass edge.
        case north = "no", east = "ea", south = "so", west = "we"
        /// A compass corner.
        case northWest = "nowe", northEast = "noea", southWest = "sowe", southEast = "soea"
        /// libvips' attention crop: the region the saliency heuristic picks.
        case smart = "sm"
        /// The point (`x`, `y`) in 0...1 of the image stays as central as the crop allows.
        case focusPoint = "fp"
    }

    /// The type.
    public var kind: Kind
    /// Offset (compass types: pixels when |x| ≥ 1, else a fraction of the width) or focus-point x.
    public var x: Double
    /// Offset (compass types: pixels when |y| ≥ 1, else a fraction of the height) or focus-point y.
    public var y: Double

    /// A gravity of `kind` with offsets.
    public init(_ kind: Kind, x: Double = 0, y: Double = 0) {
        self.kind = kind
        self.x = x
        self.y = y
    }

    /// imgproxy's default, the centre.
    public static let center = ImgproxyGravity(.center)

    /// `kind:x:y`.
    public var description: String { "\(kind.rawValue):\(x):\(y)" }

    /// The top-left corner of an `innerWidth`×`innerHeight` box placed in a `width`×`height` one,
    /// as imgproxy's `calcPosition` places it (offsets in pixels are multiplied by `dpr`), kept inside.
    func position(width: Int, height: Int, innerWidth: Int, innerHeight: Int, dpr: Double) -> (x: Int, y: Int) {
        var left: Int
        var top: Int
        if kind == .focusPoint {
            left = ImgproxyMath.scaleToEven(width, x) - innerWidth / 2
            top = ImgproxyMath.scaleToEven(height, y) - innerHeight / 2
        } else {
            let offsetX = abs(x) >= 1 ? ImgproxyMath.roundToEven(x * dpr) : ImgproxyMath.scaleToEven(width, x)
            let offsetY = abs(y) >= 1 ? ImgproxyMath.roundToEven(y * dpr) : ImgproxyMath.scaleToEven(height, y)
            left = ImgproxyMath.shrinkToEven(width - innerWidth + 1, 2) + offsetX
            top = ImgproxyMath.shrinkToEven(height - innerHeight + 1, 2) + offsetY
            if [.north, .northEast, .northWest].contains(kind) { top = offsetY }
            if [.east, .northEast, .southEast].contains(kind) { left = width - innerWidth - offsetX }
            if [.south, .southEast, .southWest].contains(kind) { top = height - innerHeight - offsetY }
            if [.west, .northWest, .southWest].contains(kind) { left = offsetX }
        }
        left = max(0, min(left, width - innerWidth))
        top = max(0, min(top, height - innerHeight))
        return (left, top)
    }

    /// The gravity that, applied before turning by `angle`° and flipping, picks what this one picks
    /// after (imgproxy's `GravityOptions.RotateAndFlip`).
    func rotatedAndFlipped(angle: Int, flipX: Bool, flipY: Bool) -> ImgproxyGravity {
        var result = self
        if flipX {
            result.kind = Self.flipXMap[result.kind] ?? result.kind
            switch result.kind {
            case .center, .north, .south: result.x = -result.x
            case .focusPoint: result.x = 1 - result.x
            default: break
            }
        }
        if flipY {
            result.kind = Self.flipYMap[result.kind] ?? result.kind
            switch result.kind {
            case .center, .east, .west: result.y = -result.y
            case .focusPoint: result.y = 1 - result.y
            default: break
            }
        }
        let (gx, gy) = (result.x, result.y)
        switch angle % 360 {
        case 90:
            result.kind = Self.rotate90[result.kind] ?? result.kind
            switch result.kind {
            case .center, .east, .west: (result.x, result.y) = (gy, -gx)
            case .focusPoint: (result.x, result.y) = (gy, 1 - gx)
            default: (result.x, result.y) = (gy, gx)
            }
        case 180:
            result.kind = Self.rotate180[result.kind] ?? result.kind
            switch result.kind {
            case .center: (result.x, result.y) = (-gx, -gy)
            case .north, .south: result.x = -gx
            case .east, .west: result.y = -gy
            case .focusPoint: (result.x, result.y) = (1 - gx, 1 - gy)
            default: break
            }
        case 270:
            result.kind = Self.rotate270[result.kind] ?? result.kind
            switch result.kind {
            case .center, .north, .south: (result.x, result.y) = (-gy, gx)
            case .focusPoint: (result.x, result.y) = (1 - gy, gx)
            default: (result.x, result.y) = (gy, gx)
            }
        default: break
        }
        return result
    }

    private static let flipXMap: [Kind: Kind] = [
        .east: .west, .west: .east, .northWest: .northEast, .northEast: .northWest,
        .southWest: .southEast, .southEast: .southWest,
    ]
    private static let flipYMap: [Kind: Kind] = [
        .north: .south, .south: .north, .northWest: .southWest, .northEast: .southEast,
        .southWest: .northWest, .southEast: .northEast,
    ]
    private static let rotate90: [Kind: Kind] = [
        .north: .west, .east: .north, .south: .east, .west: .south,
        .northWest: .southWest, .northEast: .northWest, .southWest: .southEast, .southEast: .northEast,
    ]
    private static let rotate180: [Kind: Kind] = [
        .north: .south, .east: .west, .south: .north, .west: .east,
        .northWest: .southEast, .northEast: .southWest, .southWest: .northEast, .southEast: .northWest,
    ]
    private static let rotate270: [Kind: Kind] = [
        .north: .east, .east: .south, .south: .west, .west: .north,
        .northWest: .northEast, .northEast: .southEast, .southWest: .northWest, .southEast: .southWest,
    ]
}

/// imgproxy's integer rounding (`imath`): Go's `math.Round` (half away from zero) and
/// `math.RoundToEven`, with results clamped to ±2³¹ so no input can overflow an `Int`.
enum ImgproxyMath {
    /// The largest magnitude a computed size or offset may take.
    static let limit = Double(Int32.max)

    /// `value` clamped to ±``limit`` and converted; NaN is 0.
    static func int(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(max(value, -limit), limit))
    }

    /// Go `math.Round`.
    static func round(_ value: Double) -> Int { int(value.rounded(.toNearestOrAwayFromZero)) }
    /// Go `math.RoundToEven`.
    static func roundToEven(_ value: Double) -> Int { int(value.rounded(.toNearestOrEven)) }
    /// `imath.Scale`: 0 stays 0.
    static func scale(_ value: Int, _ factor: Double) -> Int { value == 0 ? 0 : round(Double(value) * factor) }
    /// `imath.ScaleToEven`: 0 stays 0.
    static func scaleToEven(_ value: Int, _ factor: Double) -> Int {
        value == 0 ? 0 : roundToEven(Double(value) * factor)
    }
    /// `imath.ShrinkToEven`: 0 stays 0.
    static func shrinkToEven(_ value: Int, _ divisor: Double) -> Int {
        value == 0 ? 0 : roundToEven(Double(value) / divisor)
    }
    /// `imath.MinNonZero`.
    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : (b == 0 ? a : min(a, b)) }
}
