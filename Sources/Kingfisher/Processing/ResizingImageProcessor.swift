import Foundation

/// Resizes images to a reference size in points, stretching or keeping the aspect ratio.
///
/// With `mode` `.aspectFit` or `.aspectFill` the result may differ from `referenceSize` in one
/// direction (fill does not crop; append a ``CroppingImageProcessor`` for an exact size). Uses a
/// Lanczos-3 resample on premultiplied pixels; animations are resized frame by frame. For shrinking
/// large downloads, ``DownsamplingImageProcessor`` is much cheaper.
public struct ResizingImageProcessor: ImageProcessor {
    /// `"com.onevcat.Kingfisher.ResizingImageProcessor((width, height))"` for `.none`, and
    /// `"com.onevcat.Kingfisher.ResizingImageProcessor((width, height), mode)"` otherwise, as in Kingfisher.
    public let identifier: String

    /// The target size in points.
    public let referenceSize: CGSize

    /// How the image's size adapts to ``referenceSize``.
    public let targetContentMode: ContentMode

    /// Makes a processor resizing to `referenceSize` points under `mode`.
    public init(referenceSize: CGSize, mode: ContentMode = .none) {
        self.referenceSize = referenceSize
        self.targetContentMode = mode
        if mode == .none {
            identifier = "com.onevcat.Kingfisher.ResizingImageProcessor(\(referenceSize.identifierDescription))"
        } else {
            identifier = "com.onevcat.Kingfisher.ResizingImageProcessor(\(referenceSize.identifierDescription), \(mode))"
        }
    }

    /// The image at `options.scaleFactor`, resized; `.data` is decoded first. A size that is not
    /// finite or under one pixel leaves the image as it is. `nil` only when data does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = item.decodedImage(options: options) else { return nil }
        return image.kf.scaled(to: options.scaleFactor).kf.resize(to: referenceSize, for: targetContentMode)
    }
}
