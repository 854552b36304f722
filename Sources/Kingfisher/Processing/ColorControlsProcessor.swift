import Foundation

/// Adjusts brightness, contrast, saturation and exposure, as Kingfisher's `ColorControlsProcessor`
/// does with Core Image's `CIColorControls` then `CIExposureAdjust`.
///
/// On each pixel's straight (unpremultiplied) colour `c`, from 0 to 1, in this order:
/// - saturation `s` mixes with the Rec. 709 luma `L = 0.2126·R + 0.7152·G + 0.0722·B`: `L + s·(c − L)`
///   (0 grey, 1 unchanged, above 1 more saturated);
/// - brightness `b` adds: `c + b`;
/// - contrast `k` scales around the middle: `(c − 0.5)·k + 0.5`;
/// - exposure multiplies: `c·2^inputEV`;
/// then clamps to 0...1 and premultiplies again; alpha is kept. The formulas apply to the
/// stored sRGB values (Core Image applies them in its linear working space, so strong settings
/// look somewhat different). `(0, 1, 1, 0)` returns the image itself. Animated images are
/// adjusted frame by frame.
public struct ColorControlsProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.ColorControlsProcessor(<brightness>_<contrast>_<saturation>_<inputEV>)`.
    public let identifier: String

    /// Added to each channel; 0 leaves the image alone.
    public let brightness: CGFloat

    /// Scale around 0.5; 1 leaves the image alone.
    public let contrast: CGFloat

    /// Mix with the grey of the same luma; 1 leaves the image alone, 0 gives grey.
    public let saturation: CGFloat

    /// Exposure in stops: channels are multiplied by `2^inputEV`; 0 leaves the image alone.
    public let inputEV: CGFloat

    /// A processor applying the four adjustments.
    public init(brightness: CGFloat, contrast: CGFloat, saturation: CGFloat, inputEV: CGFloat) {
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.inputEV = inputEV
        identifier = "com.onevcat.Kingfisher.ColorControlsProcessor(\(brightness)_\(contrast)_\(saturation)_\(inputEV))"
    }

    /// The item at `options.scaleFactor`, adjusted; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.adjusted(brightness: brightness, contrast: contrast, saturation: saturation, inputEV: inputEV)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image with brightness, contrast, saturation and exposure adjusted as
    /// ``ColorControlsProcessor`` describes; same size and scale, every frame of an animation.
    ///
    /// `(0, 1, 1, 0)` returns the image itself, unchanged. Non-finite values count as neutral.
    public func adjusted(brightness: CGFloat, contrast: CGFloat, saturation: CGFloat, inputEV: CGFloat) -> KFCrossPlatformImage {
        let matrix = ColorMatrix.colorControls(brightness: Float(brightness), contrast: Float(contrast),
                                               saturation: Float(saturation), inputEV: Float(inputEV))
        guard matrix != ColorMatrix.identity else { return base }
        return FilterInput.map(base) { matrix.apply(to: $0) }
    }
}
