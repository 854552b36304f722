import Foundation

/// Where a smaller rectangle sits inside a larger one: which part of an image a crop keeps, or where
/// an image lands on a larger canvas.
///
/// A compass position pins the rectangle to an edge, a corner or the centre; its offsets move it
/// away from that edge (towards the centre for east and south) or, for the centre, right and down.
/// An offset of 1 or more in size (either sign) counts in pixels; a smaller one is a fraction of the
/// outer rectangle's side, as imgproxy reads them. A focal point centres the rectangle on a point
/// given in fractions of the outer rectangle. Whatever the gravity, the rectangle is then moved
/// back inside the outer one.
public enum Gravity: Sendable, Hashable, CustomStringConvertible {
    /// The nine compass positions.
    public enum Compass: String, Sendable, Hashable, CaseIterable {
        /// Centred in both directions.
        case center
        /// Against the top edge, centred horizontally.
        case north
        /// Against the bottom edge, centred horizontally.
        case south
        /// Against the right edge, centred vertically.
        case east
        /// Against the left edge, centred vertically.
        case west
        /// The top-right corner.
        case northEast
        /// The top-left corner.
        case northWest
        /// The bottom-right corner.
        case southEast
        /// The bottom-left corner.
        case southWest
    }

    /// A compass position moved by `xOffset` and `yOffset` (pixels when at least 1 in size, else
    /// fractions of the outer side).
    case compass(Compass, xOffset: CGFloat = 0, yOffset: CGFloat = 0)
    /// Centred on the point (`x`, `y`), each a fraction 0...1 of the outer side (clamped).
    case focalPoint(x: CGFloat, y: CGFloat)
    /// Content-aware placement, worked out from the pixels by
    /// ``KFCrossPlatformImage/smartCropRect(width:height:)``, as ``GravityCroppingImageProcessor``
    /// and ``FittingImageProcessor``'s `fill` do. ``rect(forCropWidth:height:inImageWidth:height:)``
    /// cannot see pixels and treats it as `.center`, and so does ``ExtendingImageProcessor``.
    case smart

    /// Centred.
    public static let center = Gravity.compass(.center)
    /// Top edge.
    public static let north = Gravity.compass(.north)
    /// Bottom edge.
    public static let south = Gravity.compass(.south)
    /// Right edge.
    public static let east = Gravity.compass(.east)
    /// Left edge.
    public static let west = Gravity.compass(.west)
    /// Top-right corner.
    public static let northEast = Gravity.compass(.northEast)
    /// Top-left corner.
    public static let northWest = Gravity.compass(.northWest)
    /// Bottom-right corner.
    public static let southEast = Gravity.compass(.southEast)
    /// Bottom-left corner.
    public static let southWest = Gravity.compass(.southWest)

    /// The whole-pixel rectangle of `cropWidth` × `cropHeight` placed in an image of `imageWidth` ×
    /// `imageHeight` pixels.
    ///
    /// The crop size is first clamped to 1...the image's side, so the rectangle always lies inside the
    /// image; an image side below 1 counts as 1. Centring rounds half a pixel towards the right and
    /// bottom; a focal point rounds half away from zero.
    public func rect(forCropWidth cropWidth: Int, height cropHeight: Int, inImageWidth imageWidth: Int, height imageHeight: Int) -> CGRect {
        let outerWidth = max(1, imageWidth)
        let outerHeight = max(1, imageHeight)
        let width = min(max(1, cropWidth), outerWidth)
        let height = min(max(1, cropHeight), outerHeight)
        let origin = placement(width: width, height: height, outerWidth: outerWidth, outerHeight: outerHeight)
        let x = min(max(0, origin.x), outerWidth - width)
        let y = min(max(0, origin.y), outerHeight - height)
        return CGRect(x: x, y: y, width: width, height: height)
    }

    /// The gravity with its pixel offsets multiplied by `factor` (fractions and focal points stay), as
    /// processors apply `options.scaleFactor` to it, or map output pixels to source pixels.
    public func scaled(by factor: CGFloat) -> Gravity {
        guard case .compass(let compass, let x, let y) = self, factor.isFinite, factor > 0 else { return self }
        return .compass(compass, xOffset: abs(x) >= 1 ? x * factor : x, yOffset: abs(y) >= 1 ? y * factor : y)
    }

    /// The spelling ``init(parsing:)`` reads: `center`, `north`, `southEast:10:0.25` (compass name,
    /// then optional x and y offsets), `fp:0.3:0.7` (a focal point) or `smart`.
    public var description: String {
        switch self {
        case .compass(let compass, let x, let y):
            return x == 0 && y == 0 ? compass.rawValue : "\(compass.rawValue):\(x.description):\(y.description)"
        case .focalPoint(let x, let y):
            return "fp:\(x.description):\(y.description)"
        case .smart:
            return "smart"
        }
    }

    /// Reads a gravity written as ``description`` writes it, names in any case; `nil` for anything
    /// else: an unknown name, a number that is not finite, one offset without the other, or a focal
    /// point outside 0...1.
    public init?(parsing text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let name = parts.first?.lowercased() else { return nil }
        var numbers: [CGFloat] = []
        for part in parts.dropFirst() {
            guard let value = Double(part), value.isFinite else { return nil }
            numbers.append(CGFloat(value))
        }
        switch name {
        case "smart":
            guard numbers.isEmpty else { return nil }
            self = .smart
        case "fp":
            guard numbers.count == 2, numbers.allSatisfy({ (0...1).contains($0) }) else { return nil }
            self = .focalPoint(x: numbers[0], y: numbers[1])
        default:
            guard let compass = Compass.allCases.first(where: { $0.rawValue.lowercased() == name }),
                  numbers.isEmpty || numbers.count == 2
            else { return nil }
            self = .compass(compass, xOffset: numbers.first ?? 0, yOffset: numbers.last ?? 0)
        }
    }

    /// The unclamped top-left corner of a `width` × `height` rectangle in the outer one.
    private func placement(width: Int, height: Int, outerWidth: Int, outerHeight: Int) -> (x: Int, y: Int) {
        switch self {
        case .smart:
            return Gravity.center.placement(width: width, height: height, outerWidth: outerWidth, outerHeight: outerHeight)
        case .focalPoint(let fx, let fy):
            let x = Self.unit(fx) * Double(outerWidth) - Double(width) / 2
            let y = Self.unit(fy) * Double(outerHeight) - Double(height) / 2
            return (Int(x.rounded()), Int(y.rounded()))
        case .compass(let compass, let xOffset, let yOffset):
            let dx = Self.pixels(xOffset, of: outerWidth)
            let dy = Self.pixels(yOffset, of: outerHeight)
            let x: Int
            switch compass {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = outerWidth - width - dx
            case .center, .north, .south: x = (outerWidth - width + 1) / 2 + dx
            }
            let y: Int
            switch compass {
            case .north, .northEast, .northWest: y = dy
            case .south, .southEast, .southWest: y = outerHeight - height - dy
            case .center, .east, .west: y = (outerHeight - height + 1) / 2 + dy
            }
            return (x, y)
        }
    }

    /// An offset in whole pixels: itself when at least 1 in size, else that fraction of `side`;
    /// bounded by `side` (any larger offset is clamped away anyway), 0 when not finite.
    private static func pixels(_ offset: CGFloat, of side: Int) -> Int {
        guard offset.isFinite else { return 0 }
        let value = abs(offset) >= 1 ? Double(offset) : Double(offset) * Double(side)
        return Int(min(max(value, -Double(side)), Double(side)).rounded())
    }

    /// A fraction clamped to 0...1; NaN counts as the middle.
    private static func unit(_ value: CGFloat) -> Double {
        value.isNaN ? 0.5 : min(max(Double(value), 0), 1)
    }
}

extension ProcessorSpec.Step {
    /// The argument at `index` as a gravity, or a thrown error listing the spellings.
    func gravity(_ index: Int) throws -> Gravity {
        let written = try argument(index, "the gravity")
        if let gravity = Gravity(parsing: written) { return gravity }
        let name = String(written.split(separator: ":", omittingEmptySubsequences: false).first ?? "")
        let names = Gravity.Compass.allCases.map(\.rawValue) + ["fp", "smart"]
        let guess = names.contains(where: { $0.lowercased() == name.lowercased() }) ? nil
            : ProcessorSpec.nearest(name, in: names).map { "; did you mean '\($0)'?" }
        throw ProcessorSpecError(
            step: text,
            reason: "the gravity must be a compass name (center, north, northEast...) with optional :X:Y offsets, "
                + "fp:X:Y with X and Y in 0...1, or smart, got '\(written)'\(guess ?? "")")
    }
}
