import Foundation

/// Places the image on a larger canvas of one colour, positioned by a ``Gravity`` (imgproxy's `extend`).
///
/// The canvas is `size × options.scaleFactor` pixels, each side rounded half away from zero, but
/// never smaller than the image: the canvas only grows, so nothing is cropped and a side the image
/// already reaches is left as it is. The background is drawn premultiplied, and transparent parts of
/// the image show it (see ``KFCrossPlatformImage/extended(toPixelWidth:height:x:y:background:)``).
/// Pixel offsets of the gravity are multiplied by `options.scaleFactor`; ``Gravity/smart`` centres.
/// Every frame of an animation is extended; the result has `options.scaleFactor`. `nil` when data
/// does not decode, a side of `size` is negative or not finite, or the canvas would exceed the
/// options' decoding limits.
public struct ExtendingImageProcessor: ImageProcessor {
    /// The canvas size in points; a side smaller than the image is raised to it.
    public let size: CGSize
    /// Where the image sits on the canvas.
    public let gravity: Gravity
    /// The canvas colour.
    public let background: KFCrossPlatformColor

    /// `"com.onevcat.Kingfisher.ExtendingImageProcessor(size:(w, h),gravity:G,background:(r,g,b,a))"`.
    public let identifier: String

    /// Makes a processor extending to `size` points, the image at `gravity` on `background`
    /// (transparent by default).
    public init(size: CGSize, gravity: Gravity = .center, background: KFCrossPlatformColor = .clear) {
        self.size = size
        self.gravity = gravity
        self.background = background
        identifier = "com.onevcat.Kingfisher.ExtendingImageProcessor(size:\(size.identifierDescription),"
            + "gravity:\(gravity.description),background:\(background.rgbaDescription))"
    }

    /// The extended image; see the type's description.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let target = GeometryLimits.pixels(size, scale: options.scaleFactor, allowsZero: true),
              let image = item.decodedImage(options: options)
        else { return nil }
        let width = max(target.width, image.pixelWidth)
        let height = max(target.height, image.pixelHeight)
        guard GeometryLimits.allows(width: width, height: height, frames: image.frames.count, options: options) else { return nil }
        let spot = gravity.scaled(by: options.scaleFactor).rect(
            forCropWidth: image.pixelWidth, height: image.pixelHeight, inImageWidth: width, height: height)
        return image.extended(toPixelWidth: width, height: height, x: Int(spot.minX), y: Int(spot.minY), background: background)
            .kf.scaled(to: options.scaleFactor)
    }
}
