import Foundation

/// Crops to a size placed by a ``Gravity``, without resizing (imgproxy's `crop` with a gravity).
///
/// The size is `size × options.scaleFactor` pixels, each side rounded half away from zero, and is
/// clamped to the image: an image smaller than `size` in a direction keeps that direction whole. See
/// ``Gravity/rect(forCropWidth:height:inImageWidth:height:)``; pixel offsets of the gravity are
/// multiplied by `options.scaleFactor`, and ``Gravity/smart`` places the crop where
/// ``KFCrossPlatformImage/smartCropRect(width:height:)`` finds the subject on the first frame (as
/// ``SmartCroppingImageProcessor`` does). Every frame of an animation is cropped; the result
/// has `options.scaleFactor`. `nil` when data does not decode or a side of `size` is not positive
/// and finite.
public struct GravityCroppingImageProcessor: ImageProcessor {
    /// The size of the crop in points.
    public let size: CGSize
    /// Where the crop sits in the image.
    public let gravity: Gravity

    /// `"com.onevcat.Kingfisher.GravityCroppingImageProcessor(size:(w, h),gravity:G)"`.
    public let identifier: String

    /// Makes a processor cropping to `size` points at `gravity`.
    public init(size: CGSize, gravity: Gravity = .center) {
        self.size = size
        self.gravity = gravity
        identifier = "com.onevcat.Kingfisher.GravityCroppingImageProcessor(size:\(size.identifierDescription),gravity:\(gravity.description))"
    }

    /// The cropped image; see the type's description.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let target = GeometryLimits.pixels(size, scale: options.scaleFactor, allowsZero: false),
              let image = item.decodedImage(options: options)
        else { return nil }
        let rect = gravity == .smart
            ? image.smartCropRect(width: min(target.width, image.pixelWidth), height: min(target.height, image.pixelHeight))
            : gravity.scaled(by: options.scaleFactor).rect(
                forCropWidth: target.width, height: target.height, inImageWidth: image.pixelWidth, height: image.pixelHeight)
        return image.cropped(toPixelRect: rect).kf.scaled(to: options.scaleFactor)
    }
}
