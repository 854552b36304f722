import Foundation

/// Crops to a rectangle given in the image's pixels, as an image server's `crop` with coordinates does.
///
/// See ``KFCrossPlatformImage/cropped(toPixelRect:)``: edges are rounded, the rectangle is clipped
/// to the image and at least 1×1 pixel always remains. The rectangle counts in pixels of the image
/// as it arrives (decoded at full size for `.data`), whatever `options.scaleFactor`; the result has
/// that scale. Every frame of an animation is cropped. `nil` only when data does not decode.
public struct RectCroppingImageProcessor: ImageProcessor {
    /// The rectangle kept, in pixels, origin top left.
    public let rect: CGRect

    /// `"com.onevcat.Kingfisher.RectCroppingImageProcessor(rect:(x, y, width, height))"`.
    public let identifier: String

    /// Makes a processor keeping `rect` (pixels).
    public init(rect: CGRect) {
        self.rect = rect
        identifier = "com.onevcat.Kingfisher.RectCroppingImageProcessor(rect:(\(rect.origin.x.description), "
            + "\(rect.origin.y.description), \(rect.size.width.description), \(rect.size.height.description)))"
    }

    /// The cropped image at `options.scaleFactor`; `.data` is decoded first.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = item.decodedImage(options: options) else { return nil }
        return image.cropped(toPixelRect: rect).kf.scaled(to: options.scaleFactor)
    }
}
