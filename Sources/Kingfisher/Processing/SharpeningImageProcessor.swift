import Foundation

/// Sharpens images with an unsharp mask of Gaussian deviation `sigma` points.
///
/// `sigma` is multiplied by `options.scaleFactor` (the scale the image is brought to first), as
/// ``BlurImageProcessor`` does with its radius. See ``KFCrossPlatformImage/sharpened(sigma:)``
/// for the arithmetic. A sigma of 0 or less gives the image back unchanged. Animated images are
/// sharpened frame by frame.
public struct SharpeningImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.SharpeningImageProcessor(<sigma>)`.
    public let identifier: String

    /// The deviation of the Gaussian blur the mask is made from, in points.
    public let sigma: CGFloat

    /// A processor sharpening with a mask of deviation `sigma` points.
    public init(sigma: CGFloat) {
        self.sigma = sigma
        identifier = "com.onevcat.Kingfisher.SharpeningImageProcessor(\(sigma))"
    }

    /// The item at `options.scaleFactor`, sharpened with `sigma × scaleFactor` pixels; `nil` when
    /// `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.sharpened(sigma: sigma * options.scaleFactor)
    }
}

extension KFCrossPlatformImage {
    /// The image sharpened by an unsharp mask of deviation `sigma` pixels; every frame of an
    /// animation is sharpened.
    ///
    /// Each colour channel becomes `original + 1 × (original − Gaussian(σ))`, the amount fixed
    /// at 1, and is clamped to 0...alpha so the premultiplied pixels stay valid; alpha itself is
    /// not changed. Edges get steeper (each side overshoots away from the other), flat regions
    /// stay exactly as they were. Up to σ = 3 the blur is a Gaussian kernel cut at 3σ; above, it
    /// is approximated by three box blurs, whose cost does not grow with σ. A σ of 0 or less, NaN,
    /// or so small that the kernel is a single tap, returns the image unchanged.
    public func sharpened(sigma: CGFloat) -> KFCrossPlatformImage {
        guard sigma > 0, UnsharpMask.kernel(sigma: sigma) != nil || sigma > UnsharpMask.gaussianLimit
        else { return self }
        return FilterInput.map(self) { UnsharpMask.sharpened($0, sigma: sigma) }
    }
}
