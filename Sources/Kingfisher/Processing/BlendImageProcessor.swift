import Foundation

/// Draws images with a ``BlendMode`` and an opacity onto a background colour, as Kingfisher's
/// `BlendImageProcessor` does with `CGBlendMode`.
///
/// The canvas is filled with `backgroundColor` (transparent when `nil`), then the image is drawn
/// on it. Over a transparent canvas every mode shows the image itself at opacity `alpha`; the
/// modes differ where the background shows. Animated images are processed frame by frame.
public struct BlendImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.BlendImageProcessor(<mode raw value>,<alpha>)`, followed by
    /// `_(r,g,b,a)` (``KFCrossPlatformColor/rgbaDescription``) when there is a background colour.
    public let identifier: String

    /// How the image mixes with the background.
    public let blendMode: BlendMode

    /// The image's opacity, 0 (invisible) to 1 (as it is).
    public let alpha: CGFloat

    /// The colour the image is drawn on; `nil` for transparent.
    public let backgroundColor: KFCrossPlatformColor?

    /// A processor drawing images with `blendMode` at opacity `alpha` onto `backgroundColor`.
    public init(blendMode: BlendMode, alpha: CGFloat = 1.0, backgroundColor: KFCrossPlatformColor? = nil) {
        self.blendMode = blendMode
        self.alpha = alpha
        self.backgroundColor = backgroundColor
        var identifier = "com.onevcat.Kingfisher.BlendImageProcessor(\(blendMode.rawValue),\(alpha))"
        if let backgroundColor {
            identifier += "_\(backgroundColor.rgbaDescription)"
        }
        self.identifier = identifier
    }

    /// The item at `options.scaleFactor`, drawn as described; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.image(withBlendMode: blendMode, alpha: alpha, backgroundColor: backgroundColor)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image drawn with `blendMode` at opacity `alpha` onto a canvas of `backgroundColor`
    /// (transparent when `nil`); same size and scale, every frame of an animation.
    ///
    /// `alpha` is clamped to 0...1 (NaN counts as 1). The formulas are those of the W3C
    /// Compositing and Blending spec, listed on ``BlendMode``, on premultiplied pixels.
    public func image(withBlendMode blendMode: BlendMode, alpha: CGFloat = 1.0,
                      backgroundColor: KFCrossPlatformColor? = nil) -> KFCrossPlatformImage {
        let opacity = FilterInput.unitValue(alpha, ifNaN: 1)
        let canvas = backgroundColor?.premultiplied ?? RGBA8(r: 0, g: 0, b: 0, a: 0)
        return FilterInput.map(base) {
            CanvasCompositor.draw($0, operation: .blend(blendMode), alpha: opacity, canvas: canvas)
        }
    }
}
