import Foundation

/// Adds a margin of one colour around the image (imgproxy's `padding`).
///
/// Each amount is in points, so `amount × options.scaleFactor` pixels, rounded half away from zero.
/// The background is drawn premultiplied and transparent parts of the image show it (see
/// ``KFCrossPlatformImage/padded(top:right:bottom:left:background:)``). Every frame of an animation
/// is padded; the result has `options.scaleFactor`. `nil` when data does not decode, an amount is
/// negative or not finite, or the result would exceed the options' decoding limits.
public struct PaddingImageProcessor: ImageProcessor {
    /// Points added above.
    public let top: CGFloat
    /// Points added on the right.
    public let right: CGFloat
    /// Points added below.
    public let bottom: CGFloat
    /// Points added on the left.
    public let left: CGFloat
    /// The margin's colour.
    public let background: KFCrossPlatformColor

    /// `"com.onevcat.Kingfisher.PaddingImageProcessor(top:T,right:R,bottom:B,left:L,background:(r,g,b,a))"`.
    public let identifier: String

    /// Makes a processor adding the four margins in `background` (transparent by default).
    public init(top: CGFloat, right: CGFloat, bottom: CGFloat, left: CGFloat, background: KFCrossPlatformColor = .clear) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
        self.background = background
        identifier = "com.onevcat.Kingfisher.PaddingImageProcessor(top:\(top.description),right:\(right.description),"
            + "bottom:\(bottom.description),left:\(left.description),background:\(background.rgbaDescription))"
    }

    /// The padded image; see the type's description.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let scale = options.scaleFactor
        guard let top = GeometryLimits.side(top, scale: scale, allowsZero: true),
              let right = GeometryLimits.side(right, scale: scale, allowsZero: true),
              let bottom = GeometryLimits.side(bottom, scale: scale, allowsZero: true),
              let left = GeometryLimits.side(left, scale: scale, allowsZero: true),
              let image = item.decodedImage(options: options),
              GeometryLimits.allows(width: image.pixelWidth + left + right, height: image.pixelHeight + top + bottom,
                                    frames: image.frames.count, options: options)
        else { return nil }
        return image.padded(top: top, right: right, bottom: bottom, left: left, background: background).kf.scaled(to: scale)
    }
}
