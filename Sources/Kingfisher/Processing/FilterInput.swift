import Foundation

/// What the filter processors (blur, tint, overlay, colour controls, blend, compositing) share.
enum FilterInput {
    /// The item as an image at `options.scaleFactor`, as Kingfisher's processors take it:
    /// `.data` decoded by ``DefaultImageProcessor``, `.image` given the requested scale.
    static func image(_ item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        DefaultImageProcessor.default.process(item: item, options: options)
    }

    /// `image` with `transform` applied to every frame, or `image` itself when a frame fails.
    static func map(_ image: KFCrossPlatformImage, _ transform: (ImageFrame) -> ImageFrame?) -> KFCrossPlatformImage {
        image.mapFrames(transform) ?? image
    }
}

extension FilterInput {
    /// `value` clamped to 0...1 as a `Float`; `ifNaN` when it is not a number.
    static func unitValue(_ value: CGFloat, ifNaN: Float) -> Float {
        value.isNaN ? ifNaN : Float(min(max(value, 0), 1))
    }
}
