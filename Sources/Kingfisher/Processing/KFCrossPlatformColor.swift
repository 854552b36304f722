import Foundation

/// A colour for processor parameters (tint, overlay, border, background), standing where `UIColor`
/// stands in Kingfisher: straight (not premultiplied) sRGB components from 0 to 1.
///
/// ``rgbaDescription`` is the form processor identifiers use, so equal colours give equal cache keys.
public struct KFCrossPlatformColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0...1.
    public let red: CGFloat
    /// Green, 0...1.
    public let green: CGFloat
    /// Blue, 0...1.
    public let blue: CGFloat
    /// Alpha, 0...1.
    public let alpha: CGFloat

    /// A colour from components in 0...1; values outside are clamped, NaN becomes 0.
    public init(red: CGFloat, green: CGFloat, blue: CGFloat, alpha: CGFloat = 1) {
        func clamp(_ value: CGFloat) -> CGFloat { value.isNaN ? 0 : min(max(value, 0), 1) }
        self.red = clamp(red)
        self.green = clamp(green)
        self.blue = clamp(blue)
        self.alpha = clamp(alpha)
    }

    /// A grey of `white` (0 black, 1 white).
    public init(white: CGFloat, alpha: CGFloat = 1) {
        self.init(red: white, green: white, blue: white, alpha: alpha)
    }

    /// A colour from `#RGB`, `#RGBA`, `#RRGGBB` or `#RRGGBBAA` (the `#` optional); `nil` otherwise.
    public init?(hex: String) {
        var text = Substring(hex.trimmingCharacters(in: .whitespaces))
        if text.hasPrefix("#") { text = text.dropFirst() }
        guard [3, 4, 6, 8].contains(text.count), text.allSatisfy(\.isHexDigit) else { return nil }
        if text.count <= 4 {
            text = Substring(text.flatMap { [$0, $0] })
        }
        if text.count == 6 { text += "ff" }
        guard let value = UInt32(text, radix: 16) else { return nil }
        self.init(red: CGFloat(value >> 24 & 0xFF) / 255, green: CGFloat(value >> 16 & 0xFF) / 255,
                  blue: CGFloat(value >> 8 & 0xFF) / 255, alpha: CGFloat(value & 0xFF) / 255)
    }

    // The named colours carry UIKit's component values: code that names one draws the colour it
    // draws on Apple platforms.

    /// Opaque black (white 0).
    public static let black = KFCrossPlatformColor(white: 0)
    /// Opaque dark grey (white 1/3).
    public static let darkGray = KFCrossPlatformColor(white: 1.0 / 3.0)
    /// Opaque light grey (white 2/3).
    public static let lightGray = KFCrossPlatformColor(white: 2.0 / 3.0)
    /// Opaque white (white 1).
    public static let white = KFCrossPlatformColor(white: 1)
    /// Opaque grey (white 0.5).
    public static let gray = KFCrossPlatformColor(white: 0.5)
    /// Opaque red (1, 0, 0).
    public static let red = KFCrossPlatformColor(red: 1, green: 0, blue: 0)
    /// Opaque green (0, 1, 0).
    public static let green = KFCrossPlatformColor(red: 0, green: 1, blue: 0)
    /// Opaque blue (0, 0, 1).
    public static let blue = KFCrossPlatformColor(red: 0, green: 0, blue: 1)
    /// Opaque cyan (0, 1, 1).
    public static let cyan = KFCrossPlatformColor(red: 0, green: 1, blue: 1)
    /// Opaque yellow (1, 1, 0).
    public static let yellow = KFCrossPlatformColor(red: 1, green: 1, blue: 0)
    /// Opaque magenta (1, 0, 1).
    public static let magenta = KFCrossPlatformColor(red: 1, green: 0, blue: 1)
    /// Opaque orange (1, 0.5, 0).
    public static let orange = KFCrossPlatformColor(red: 1, green: 0.5, blue: 0)
    /// Opaque purple (0.5, 0, 0.5).
    public static let purple = KFCrossPlatformColor(red: 0.5, green: 0, blue: 0.5)
    /// Opaque brown (0.6, 0.4, 0.2).
    public static let brown = KFCrossPlatformColor(red: 0.6, green: 0.4, blue: 0.2)
    /// Fully transparent black (white 0, alpha 0).
    public static let clear = KFCrossPlatformColor(white: 0, alpha: 0)

    /// The components as bytes, rounded.
    public var rgba8: (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        func byte(_ value: CGFloat) -> UInt8 { UInt8((value * 255).rounded()) }
        return (byte(red), byte(green), byte(blue), byte(alpha))
    }

    /// The colour as one premultiplied pixel.
    public var premultiplied: RGBA8 {
        let (r, g, b, a) = rgba8
        let alpha = UInt32(a)
        return RGBA8(r: PixelConversion.multiply(r, alpha), g: PixelConversion.multiply(g, alpha),
                     b: PixelConversion.multiply(b, alpha), a: a)
    }

    /// `#RRGGBBAA`, upper case.
    public var hex: String {
        let (r, g, b, a) = rgba8
        return String(format: "#%02X%02X%02X%02X", r, g, b, a)
    }

    /// `(r,g,b,a)` with each component as a byte: the form processor identifiers use.
    public var rgbaDescription: String {
        let (r, g, b, a) = rgba8
        return "(\(r),\(g),\(b),\(a))"
    }

    /// The colour as `#RRGGBBAA` hex.
    public var description: String { hex }
}
