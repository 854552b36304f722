import Foundation

/// Turns images black and white, as Kingfisher's `BlackWhiteProcessor` does: a
/// ``ColorControlsProcessor`` with brightness 0, contrast 1, saturation 0 and exposure +0.7 EV.
///
/// The result is grey (equal red, green and blue) and brighter than the plain luma, since the
/// exposure multiplies by `2^0.7 ≈ 1.62`. Animated images are processed frame by frame.
public struct BlackWhiteProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.BlackWhiteProcessor`.
    public let identifier = "com.onevcat.Kingfisher.BlackWhiteProcessor"

    /// The black-and-white processor.
    public init() {}

    /// The item at `options.scaleFactor` in black and white; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        ColorControlsProcessor(brightness: 0, contrast: 1, saturation: 0, inputEV: 0.7)
            .process(item: item, options: options)
    }
}
