import Foundation

/// Mirrors the image left to right, top to bottom, or both (see ``KFCrossPlatformImage/flipped(horizontal:vertical:)``).
///
/// Every frame of an animation is flipped; the result has `options.scaleFactor`. `nil` only when data
/// does not decode.
public struct FlippingImageProcessor: ImageProcessor {
    /// Mirror left to right.
    public let horizontal: Bool
    /// Mirror top to bottom.
    public let vertical: Bool

    /// `"com.onevcat.Kingfisher.FlippingImageProcessor(horizontal:H,vertical:V)"`.
    public let identifier: String

    /// Makes a processor flipping in the directions asked.
    public init(horizontal: Bool, vertical: Bool) {
        self.horizontal = horizontal
        self.vertical = vertical
        identifier = "com.onevcat.Kingfisher.FlippingImageProcessor(horizontal:\(horizontal),vertical:\(vertical))"
    }

    /// The flipped image at `options.scaleFactor`; `.data` is decoded first.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        item.decodedImage(options: options)?.flipped(horizontal: horizontal, vertical: vertical).kf.scaled(to: options.scaleFactor)
    }
}
