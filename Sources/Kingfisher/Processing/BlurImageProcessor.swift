import Foundation

/// Blurs images with a Gaussian-quality blur: three box blurs, as Kingfisher does with vImage.
///
/// `blurRadius` is in points; it is multiplied by `options.scaleFactor` (the scale the image is
/// brought to first), so an image looks equally blurred at any scale. A radius of 0 or less gives
/// the image back unchanged. Animated images are blurred frame by frame.
public struct BlurImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.BlurImageProcessor(<blurRadius>)`.
    public let identifier: String

    /// The blur radius in points, about the standard deviation of the Gaussian it approximates.
    public let blurRadius: CGFloat

    /// A processor blurring by `blurRadius` points.
    public init(blurRadius: CGFloat) {
        self.blurRadius = blurRadius
        identifier = "com.onevcat.Kingfisher.BlurImageProcessor(\(blurRadius))"
    }

    /// The item at `options.scaleFactor`, blurred by `blurRadius × scaleFactor` pixels; `nil` when
    /// `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.blurred(withRadius: blurRadius * options.scaleFactor)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image blurred by `radius` pixels (not points, as in Kingfisher, whose vImage blur works
    /// on the bitmap); every frame of an animation is blurred.
    ///
    /// The radius maps to box passes as Kingfisher maps it: boxes of width
    /// `floor(max(radius, 2) · 3·√(2π)/4 + 0.5)`, made odd, applied three times (once below 0.5,
    /// twice below 1.5), each horizontally and vertically, with edge pixels extended. So radius 10
    /// runs three 19-pixel boxes, a Gaussian of σ ≈ 9.5. Radii larger than the image work (the
    /// edges keep extending). A radius of 0 or less, or NaN, returns the image unchanged; boxes stop
    /// growing at 32,767 pixels (a radius near 17,400).
    public func blurred(withRadius radius: CGFloat) -> KFCrossPlatformImage {
        guard let plan = BoxBlur.plan(radius: radius) else { return base }
        return FilterInput.map(base) { BoxBlur.blurred($0, plan: plan) }
    }
}
