import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// Decodes `data` straight to a thumbnail whose longest side is `max(pointSize) × scale` pixels.
    ///
    /// The rule of ImageIO's thumbnails, which Kingfisher uses: the aspect ratio is kept, the longest
    /// side becomes that many pixels, and an image already that small or smaller is decoded at its
    /// own size (never enlarged). JPEG decodes at a reduced DCT scale and WebP scales while decoding,
    /// so a large photo never exists at full size in memory; a Lanczos-3 resample then gives the exact
    /// size. EXIF orientation is applied. Animations keep every frame. The result has `scale`.
    /// `nil` when the data does not decode, when a component of `pointSize` is negative or not
    /// finite, or when the longest side would be under one pixel (a zero size).
    public static func downsampledImage(data: Data, to pointSize: CGSize, scale: CGFloat) -> KFCrossPlatformImage? {
        downsampledImage(data: data, to: pointSize, options: ImageCreatingOptions(scale: scale))
    }

    /// ``downsampledImage(data:to:scale:)`` with the scale, first-frame choice and limits of `options`.
    static func downsampledImage(data: Data, to pointSize: CGSize, options: ImageCreatingOptions) -> KFCrossPlatformImage? {
        guard let maxPixels = maxPixelDimension(pointSize, scale: options.scale),
              let header = try? ImageHeader(data: data)
        else { return nil }
        let upright = header.orientedPixelSize
        guard let target = thumbnailSize(width: upright.width, height: upright.height, maxPixels: maxPixels) else { return nil }
        var decoding = options
        if target.width < upright.width || target.height < upright.height {
            decoding.minimumPixelSize = CGSize(width: target.width, height: target.height)
        }
        guard let decoded = try? KFCrossPlatformImage(data: data, options: decoding) else { return nil }
        return decoded.resampled(width: target.width, height: target.height)
    }

    /// The image shrunk by the rule of ``downsampledImage(data:to:scale:)`` (longest side at most
    /// `max(pointSize) × scale` pixels, never enlarged), with `scale`; `nil` for an invalid size.
    static func downsampled(_ image: KFCrossPlatformImage, to pointSize: CGSize, scale: CGFloat) -> KFCrossPlatformImage? {
        guard let maxPixels = maxPixelDimension(pointSize, scale: scale),
              let target = thumbnailSize(width: image.pixelWidth, height: image.pixelHeight, maxPixels: maxPixels)
        else { return nil }
        return image.resampled(width: target.width, height: target.height).kf.scaled(to: scale)
    }

    /// `max(width, height) × scale` rounded; `nil` when negative, not finite or under one pixel.
    static func maxPixelDimension(_ pointSize: CGSize, scale: CGFloat) -> Int? {
        guard pointSize.width.isFinite, pointSize.height.isFinite, pointSize.width >= 0, pointSize.height >= 0,
              scale.isFinite, scale > 0
        else { return nil }
        let pixels = (max(pointSize.width, pointSize.height) * scale).rounded()
        guard pixels >= 1, pixels <= CGFloat(Int32.max) else { return nil }
        return Int(pixels)
    }

    /// `width` × `height` shrunk so its longest side is `maxPixels`, aspect kept; unchanged if already
    /// within. `nil` for an empty size.
    static func thumbnailSize(width: Int, height: Int, maxPixels: Int) -> (width: Int, height: Int)? {
        guard width > 0, height > 0, maxPixels > 0 else { return nil }
        let longest = max(width, height)
        guard longest > maxPixels else { return (width, height) }
        let ratio = Double(maxPixels) / Double(longest)
        if width >= height {
            return (maxPixels, max(1, Int((Double(height) * ratio).rounded())))
        }
        return (max(1, Int((Double(width) * ratio).rounded())), maxPixels)
    }
}
