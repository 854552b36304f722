import Foundation

/// Lays a colour over images where they are opaque, as Kingfisher's `OverlayImageProcessor`
/// does: `fraction` 0 gives the colour in the image's shape, 1 the image unchanged.
///
/// The image's alpha is kept, so transparent areas stay transparent. Animated images are
/// processed frame by frame.
public struct OverlayImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.OverlayImageProcessor((r,g,b,a)_<fraction>)`, the colour as
    /// ``KFCrossPlatformColor/rgbaDescription``.
    public let identifier: String

    /// The overlay colour.
    public let overlay: KFCrossPlatformColor

    /// How much of the image shows through, 0 (only the colour) to 1 (no overlay).
    public let fraction: CGFloat

    /// A processor overlaying `overlay`, letting `fraction` of the image show through.
    public init(overlay: KFCrossPlatformColor, fraction: CGFloat = 0.5) {
        self.overlay = overlay
        self.fraction = fraction
        identifier = "com.onevcat.Kingfisher.OverlayImageProcessor(\(overlay.rgbaDescription)_\(fraction))"
    }

    /// The item at `options.scaleFactor` with the overlay; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.overlaying(with: overlay, fraction: fraction)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image with `color` laid over it where it is opaque: the straight colour of each pixel
    /// becomes `pixel·(1 − w) + color·w` with `w = (1 − fraction)·αcolor`, and its alpha is kept.
    /// Same size and scale; every frame of an animation.
    ///
    /// `fraction` is clamped to 0...1 (NaN counts as 1). With an opaque colour this is what
    /// Kingfisher draws on both platforms for opaque images (on macOS it fills the colour at alpha
    /// `1 − fraction` source-atop). Where they differ, this keeps the image's alpha (UIKit's
    /// drawing lets a translucent colour make the whole image translucent) and treats fraction 0
    /// as the solid colour (AppKit's skips the fill then); the colour's alpha scales its weight.
    public func overlaying(with color: KFCrossPlatformColor, fraction: CGFloat) -> KFCrossPlatformImage {
        let showThrough = FilterInput.unitValue(fraction, ifNaN: 1)
        let weight = (1 - showThrough) * Float(color.alpha)
        let weight8 = UInt8((weight * 255).rounded())
        guard weight8 > 0 else { return base }
        let (r, g, b, _) = color.rgba8
        return FilterInput.map(base) { ColorFill.mix(red: r, green: g, blue: b, weight: weight8, into: $0) }
    }
}
