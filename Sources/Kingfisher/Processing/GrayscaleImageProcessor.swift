import Foundation

/// Turns the image grey with Rec. 601 luma, as thumbor's `grayscale` does (see
/// ``KFCrossPlatformImage/grayscaled()``); alpha is kept.
///
/// Unlike ``BlackWhiteProcessor``, which follows Kingfisher's Core Image filter, this applies no
/// exposure lift. Every frame of an animation is mapped; the result has `options.scaleFactor`.
/// `nil` only when data does not decode.
public struct GrayscaleImageProcessor: ImageProcessor {
    /// `"com.onevcat.Kingfisher.GrayscaleImageProcessor"`.
    public let identifier = "com.onevcat.Kingfisher.GrayscaleImageProcessor"

    /// Makes the processor.
    public init() {}

    /// The grey image at `options.scaleFactor`; `.data` is decoded first.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        item.decodedImage(options: options)?.grayscaled().kf.scaled(to: options.scaleFactor)
    }
}
