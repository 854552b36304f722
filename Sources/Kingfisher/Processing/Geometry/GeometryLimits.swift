import Foundation

/// The size checks the geometry processors share: points to whole pixels, and results held to the
/// options' decoding limits so no request can make a processor allocate without bound.
enum GeometryLimits {
    /// `size × scale` in whole pixels, rounded half away from zero, a positive side at least 1;
    /// `nil` when a side is negative, not finite or beyond `Int32.max`, or 0 and `allowsZero` is false.
    static func pixels(_ size: CGSize, scale: CGFloat, allowsZero: Bool) -> (width: Int, height: Int)? {
        guard let width = side(size.width, scale: scale, allowsZero: allowsZero),
              let height = side(size.height, scale: scale, allowsZero: allowsZero)
        else { return nil }
        return (width, height)
    }

    /// `value × scale` as a whole number of pixels; see ``pixels(_:scale:allowsZero:)``.
    static func side(_ value: CGFloat, scale: CGFloat, allowsZero: Bool) -> Int? {
        let pixels = value * scale
        guard pixels.isFinite, pixels >= 0, pixels <= CGFloat(Int32.max) else { return nil }
        if pixels == 0 { return allowsZero ? 0 : nil }
        return max(1, Int(pixels.rounded()))
    }

    /// True when `frames` frames of `width` × `height` are within the options' decoding limits.
    static func allows(width: Int, height: Int, frames: Int, options: KingfisherParsedOptionsInfo) -> Bool {
        let limits = options.decodingLimits
        let (perFrame, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, perFrame <= limits.maxPixelsPerFrame else { return false }
        guard frames > 1 else { return true }
        let (total, totalOverflow) = perFrame.multipliedReportingOverflow(by: frames)
        return !totalOverflow && total <= limits.maxTotalAnimationPixels
    }
}
