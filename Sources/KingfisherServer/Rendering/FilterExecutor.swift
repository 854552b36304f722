import Foundation
import Kingfisher

/// Runs a ``RenditionFilter`` on an image with the library's pixel operations.
enum FilterExecutor {
    /// `image` filtered; `nil` when a processor refuses it.
    static func apply(_ filter: RenditionFilter, to image: KFCrossPlatformImage,
                      options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch filter {
        case .blur(let sigma):
            return sigma > 0 ? image.kf.blurred(withRadius: CGFloat(sigma)) : image
        case .sharpen(let sigma):
            return sigma > 0 ? image.sharpened(sigma: CGFloat(sigma)) : image
        case .grayscale:
            return image.grayscaled()
        case .brightness(let amount):
            // thumbor's amounts are −100...100.
            return ColorLevelsImageProcessor.thumborBrightness(min(max(amount, -100), 100))
                .process(item: .image(image), options: options)
        case .contrast(let amount):
            return ColorLevelsImageProcessor.thumborContrast(min(max(amount, -100), 100))
                .process(item: .image(image), options: options)
        case .roundCorner(let horizontal, let vertical, let color):
            // One radius for both axes: the smaller, so an elliptical request never overflows.
            let radius = CGFloat(max(0, min(horizontal, vertical)))
            let processor = RoundCornerImageProcessor(
                cornerRadius: radius, backgroundColor: color.alpha == 0 ? nil : color.platformColor)
            return processor.process(item: .image(image), options: options)
        case .background(let color):
            guard !image.isOpaque else { return image }
            let processor = CompositingImageProcessor(compositingOperation: .sourceOver, backgroundColor: color.platformColor)
            return processor.process(item: .image(image), options: options)
        case .pad(let top, let right, let bottom, let left, let color):
            return image.padded(top: top, right: right, bottom: bottom, left: left, background: color.platformColor)
        case .watermark, .trim:
            // They need the fetched watermark or change the geometry: RenditionProcessor runs them.
            return image
        }
    }
}
