import Foundation

/// Draws images with a Porter-Duff ``CompositingOperation`` and an opacity onto a background
/// colour, as Kingfisher's `CompositingImageProcessor` does with `NSCompositingOperation`.
///
/// The canvas is filled with `backgroundColor` (transparent when `nil`) as the destination, then
/// the image, at opacity `alpha`, is composited onto it as the source. Animated images are
/// processed frame by frame.
public struct CompositingImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.CompositingImageProcessor(<operation raw value>,<alpha>)`, followed
    /// by `_(r,g,b,a)` (``KFCrossPlatformColor/rgbaDescription``) when there is a background colour.
    public let identifier: String

    /// How the image meets the background.
    public let compositingOperation: CompositingOperation

    /// The image's opacity, 0 (invisible) to 1 (as it is).
    public let alpha: CGFloat

    /// The colour the image is composited onto; `nil` for transparent.
    public let backgroundColor: KFCrossPlatformColor?

    /// A processor compositing images with `compositingOperation` at opacity `alpha` onto
    /// `backgroundColor`.
    public init(compositingOperation: CompositingOperation, alpha: CGFloat = 1.0,
                backgroundColor: KFCrossPlatformColor? = nil) {
        self.compositingOperation = compositingOperation
        self.alpha = alpha
        self.backgroundColor = backgroundColor
        var identifier = "com.onevcat.Kingfisher.CompositingImageProcessor(\(compositingOperation.rawValue),\(alpha))"
        if let backgroundColor {
            identifier += "_\(backgroundColor.rgbaDescription)"
        }
        self.identifier = identifier
    }

    /// The item at `options.scaleFactor`, composited as described; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.image(withCompositingOperation: compositingOperation, alpha: alpha,
                              backgroundColor: backgroundColor)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image composited with `compositingOperation` at opacity `alpha` onto a canvas of
    /// `backgroundColor` (transparent when `nil`); same size and scale, every frame of an animation.
    ///
    /// `alpha` is clamped to 0...1 (NaN counts as 1). The formulas are listed on
    /// ``CompositingOperation``; with no background, `.sourceIn` or `.destinationOver` give a
    /// transparent image, as they do in AppKit.
    public func image(withCompositingOperation compositingOperation: CompositingOperation, alpha: CGFloat = 1.0,
                      backgroundColor: KFCrossPlatformColor? = nil) -> KFCrossPlatformImage {
        let opacity = FilterInput.unitValue(alpha, ifNaN: 1)
        let canvas = backgroundColor?.premultiplied ?? RGBA8(r: 0, g: 0, b: 0, a: 0)
        return FilterInput.map(base) {
            CanvasCompositor.draw($0, operation: .compositing(compositingOperation), alpha: opacity, canvas: canvas)
        }
    }
}
