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
            // thumbor adds the integer 255·N/100 to each channel (N is −100...100 there).
            let percent = min(max(amount, -100), 100)
            return image.levelsAdjusted(contrast: 1, brightness: Float(255 * percent / 100))
        case .contrast(let amount):
            // thumbor scales around 128 by ((N + 100)² / 100) / 100.
            let percent = min(max(amount, -100), 100)
            let factor = Float((percent + 100) * (percent + 100)) / 10_000
            return image.levelsAdjusted(contrast: factor, brightness: 0)
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
            let width = image.pixelWidth + max(0, left) + max(0, right)
            let height = image.pixelHeight + max(0, top) + max(0, bottom)
            return image.extended(toPixelWidth: width, height: height, x: max(0, left), y: max(0, top),
                                  background: color.platformColor)
        }
    }
}
