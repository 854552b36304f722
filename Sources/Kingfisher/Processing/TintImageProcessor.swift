import Foundation

/// Tints images with a colour, as Kingfisher's `TintImageProcessor` does: the colour is drawn
/// over the whole image with source-over compositing.
///
/// An opaque tint therefore gives a rectangle of that colour (transparent areas included, as in
/// Kingfisher, whose Core Image filter puts a constant colour over the image and crops it to the
/// image's bounds); a translucent tint shades the image and lifts the alpha of transparent areas
/// to the tint's. Opaque pixels stay opaque. Animated images are tinted frame by frame.
public struct TintImageProcessor: ImageProcessor {
    /// `com.onevcat.Kingfisher.TintImageProcessor((r,g,b,a))`, the colour as
    /// ``KFCrossPlatformColor/rgbaDescription``.
    public let identifier: String

    /// The colour laid over the image; its alpha decides how much of the image shows through.
    public let tint: KFCrossPlatformColor

    /// A processor tinting images with `tint`.
    public init(tint: KFCrossPlatformColor) {
        self.tint = tint
        identifier = "com.onevcat.Kingfisher.TintImageProcessor(\(tint.rgbaDescription))"
    }

    /// The item at `options.scaleFactor`, tinted; `nil` when `.data` does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let image = FilterInput.image(item, options: options) else { return nil }
        return image.kf.tinted(with: tint)
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image with `color` drawn over it (source-over): each premultiplied pixel becomes
    /// `color·αc + pixel·(1 − αc)`, alpha included. Same size and scale; every frame of an animation.
    ///
    /// A fully transparent colour gives the image back unchanged; an opaque one gives a plain
    /// rectangle of the colour, as in Kingfisher.
    public func tinted(with color: KFCrossPlatformColor) -> KFCrossPlatformImage {
        let premultiplied = color.premultiplied
        guard premultiplied.a > 0 else { return base }
        return FilterInput.map(base) { ColorFill.sourceOver(premultiplied, onto: $0) }
    }
}
