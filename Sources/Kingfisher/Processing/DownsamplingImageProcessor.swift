import Foundation

/// Decodes data straight to a small image: decode-time scaling, then a Lanczos-3 resample.
///
/// Follows Kingfisher (and ImageIO's thumbnails): the result's longest side is
/// `max(size.width, size.height) × options.scaleFactor` pixels, aspect kept, and images already that
/// small are never enlarged. Prefer it to ``ResizingImageProcessor`` for large images: a JPEG is
/// decoded at 1/2, 1/4 or 1/8 scale by the codec and WebP scales while decoding, so the full-size
/// bitmap never exists. Animated GIF and WebP are downsampled frame by frame. A zero size makes the
/// processor return `nil` (an error for the manager). `.image` items are resampled by the same rule.
public struct DownsamplingImageProcessor: ImageProcessor {
    /// The size, in points, whose longer side bounds the result's longest side.
    public let size: CGSize

    /// `"com.onevcat.Kingfisher.DownsamplingImageProcessor((width, height))"`, as in Kingfisher.
    public let identifier: String

    /// Makes a processor for `size` points.
    public init(size: CGSize) {
        self.size = size
        self.identifier = "com.onevcat.Kingfisher.DownsamplingImageProcessor(\(size.identifierDescription))"
    }

    /// Downsamples `.data` while decoding (with the options' scale, first-frame choice and limits) or
    /// resamples `.image`; `nil` when the data does not decode or the size is invalid.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch item {
        case .image(let image):
            return KingfisherWrapper.downsampled(image, to: size, scale: options.scaleFactor)
        case .data(let data):
            return KingfisherWrapper.downsampledImage(data: data, to: size, options: options.imageCreatingOptions)
        }
    }
}
