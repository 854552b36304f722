import Foundation

/// A linear contrast and brightness map of the colour channels, as thumbor's `brightness` and
/// `contrast` filters apply them.
///
/// Each straight colour channel `c` (0...255) becomes `contrast × (c − 128) + 128 + brightness`,
/// rounded half away from zero and clamped; alpha is kept (see
/// ``KFCrossPlatformImage/levelsAdjusted(contrast:brightness:)``). Every frame of an animation is
/// mapped; the result has `options.scaleFactor`. `nil` only when data does not decode.
public struct ColorLevelsImageProcessor: ImageProcessor {
    /// The slope around 128; 1 leaves contrast alone.
    public let contrast: Float
    /// Added to each channel, in 0...255 units; 0 leaves brightness alone.
    public let brightness: Float

    /// `"com.onevcat.Kingfisher.ColorLevelsImageProcessor(contrast:C,brightness:B)"`.
    public let identifier: String

    /// Makes a processor applying `contrast` and `brightness`.
    public init(contrast: Float, brightness: Float) {
        self.contrast = contrast
        self.brightness = brightness
        identifier = "com.onevcat.Kingfisher.ColorLevelsImageProcessor(contrast:\(contrast.description),brightness:\(brightness.description))"
    }

    /// thumbor's `brightness(percent)`: contrast 1, brightness `255 × percent / 100` in integer
    /// arithmetic (truncated towards zero), as thumbor computes it.
    public static func thumborBrightness(_ percent: Int) -> ColorLevelsImageProcessor {
        let clamped = min(max(percent, -1_000_000), 1_000_000)
        return ColorLevelsImageProcessor(contrast: 1, brightness: Float(255 * clamped / 100))
    }

    /// thumbor's `contrast(percent)`: contrast `((percent + 100)² / 100) / 100`, brightness 0.
    public static func thumborContrast(_ percent: Int) -> ColorLevelsImageProcessor {
        let factor = Double(min(max(percent, -1_000_000), 1_000_000) + 100)
        return ColorLevelsImageProcessor(contrast: Float(factor * factor / 100 / 100), brightness: 0)
    }

    /// The mapped image at `options.scaleFactor`; `.data` is decoded first.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        item.decodedImage(options: options)?.levelsAdjusted(contrast: contrast, brightness: brightness).kf.scaled(to: options.scaleFactor)
    }
}
