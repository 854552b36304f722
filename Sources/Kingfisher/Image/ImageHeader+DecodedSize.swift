import Foundation

extension ImageHeader {
    /// The stored pixel size that decoding this image with `minimum` as its
    /// ``ImageCreatingOptions/minimumPixelSize`` produces, or `nil` when the codec decides from more
    /// than the header (a HEIC file picks among its embedded thumbnails).
    ///
    /// Two decodes of the same bytes with the same other options and the same answer here give the
    /// same image, which is what lets a server share one reduced decode among several renditions.
    package func decodedPixelSize(minimum: CGSize?) -> (width: Int, height: Int)? {
        guard let minimum else { return (pixelWidth, pixelHeight) }
        switch format {
        case .JPEG:
            let denominator = Int(JPEGCodec.scaleDenominator(width: pixelWidth, height: pixelHeight,
                                                             orientation: orientation, minimum: minimum))
            return ((pixelWidth + denominator - 1) / denominator, (pixelHeight + denominator - 1) / denominator)
        case .WebP:
            let stored = orientation.swapsDimensions ? CGSize(width: minimum.height, height: minimum.width) : minimum
            return WebPCodec.scaledSize(width: pixelWidth, height: pixelHeight, minimum: stored)
        case .HEIC:
            return nil
        case .unknown, .PNG, .GIF, .AVIF, .JXL:
            return (pixelWidth, pixelHeight)
        }
    }
}
