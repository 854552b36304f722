import Foundation

/// Crops images to a size in points, placed by an anchor.
///
/// See ``KingfisherWrapper/crop(to:anchorOn:)``: anchor (0, 0) keeps the top left, (0.5, 0.5) the
/// centre, (1, 1) the bottom right; an image smaller than `size` in a direction keeps that direction
/// whole. Animations are cropped frame by frame.
public struct CroppingImageProcessor: ImageProcessor {
    /// `"com.onevcat.Kingfisher.CroppingImageProcessor((width, height)_(x, y))"`, as in Kingfisher.
    public let identifier: String

    /// The size of the result in points.
    public let size: CGSize

    /// Where the crop sits: each component from 0 (top or left) to 1 (bottom or right).
    public let anchor: CGPoint

    /// Makes a processor cropping to `size` points at `anchor` (the centre by default).
    public init(size: CGSize, anchor: CGPoint = CGPoint(x: 0.5, y: 0.5)) {
        self.size = size
        self.anchor = anchor
        identifier = "com.onevcat.Kingfisher.CroppingImageProcessor(\(size.identifierDescription)_\(anchor.identifierDescription))"
    }

    /// The image at `options.scaleFactor`, cropped; `.data` is decoded first. A size that is not finite
    /// or under one pixel leaves the image as it is. `nil` only when data does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = item.decodedImage(options: options) else { return nil }
        return image.kf.scaled(to: options.scaleFactor).kf.crop(to: size, anchorOn: anchor)
    }
}
