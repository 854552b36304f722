import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The part of the image of `size` points placed at `anchor`, at the image's scale.
    ///
    /// `anchor` is a fraction of the free space in each direction, clamped to 0...1: (0, 0) keeps the
    /// top-left corner, (0.5, 0.5) the centre, (1, 1) the bottom-right corner. Where the image is
    /// smaller than `size` in a direction, that direction is kept whole (the result is never larger
    /// than the image). The crop starts on a whole pixel: its origin is rounded, its size is exactly
    /// `size × scale` rounded. Returns the image itself when `size` is not finite, under one pixel,
    /// or covers the whole image. Animations are cropped frame by frame.
    public func crop(to size: CGSize, anchorOn anchor: CGPoint) -> KFCrossPlatformImage {
        guard let rect = Self.cropRect(imageWidth: base.pixelWidth, imageHeight: base.pixelHeight,
                                       size: size, scale: base.scale, anchor: anchor),
              rect.width != base.pixelWidth || rect.height != base.pixelHeight
        else { return base }
        return base.mapFrames { $0.cropped(x: rect.x, y: rect.y, width: rect.width, height: rect.height) } ?? base
    }

    /// The crop rectangle in pixels for `size` points at `scale` placed at `anchor`; `nil` when
    /// `size` is not finite or under one pixel.
    static func cropRect(imageWidth: Int, imageHeight: Int, size: CGSize, scale: CGFloat,
                         anchor: CGPoint) -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let pixels = pixelSize(of: size, scale: scale) else { return nil }
        let width = min(pixels.width, imageWidth)
        let height = min(pixels.height, imageHeight)
        let anchorX = anchor.x.isNaN ? 0.5 : anchor.x.clamped(to: 0...1)
        let anchorY = anchor.y.isNaN ? 0.5 : anchor.y.clamped(to: 0...1)
        let x = Int((anchorX * CGFloat(imageWidth - width)).rounded())
        let y = Int((anchorY * CGFloat(imageHeight - height)).rounded())
        return (x, y, width, height)
    }
}

extension ImageFrame {
    /// The `width` × `height` pixels at (`x`, `y`); the rectangle must lie inside the frame.
    func cropped(x: Int, y: Int, width: Int, height: Int) -> ImageFrame {
        precondition(x >= 0 && y >= 0 && width > 0 && height > 0 && x + width <= self.width && y + height <= self.height)
        let rowBytes = width * 4
        let sourceRowBytes = bytesPerRow
        let result = pixels.withUnsafeBytes { source in
            PixelMemory.bytes(count: rowBytes * height) { target in
                guard let sourceBase = source.baseAddress, let targetBase = target.baseAddress else { return }
                for row in 0..<height {
                    (targetBase + row * rowBytes).update(
                        from: sourceBase.assumingMemoryBound(to: UInt8.self) + (y + row) * sourceRowBytes + x * 4,
                        count: rowBytes)
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: result, duration: duration)
    }
}
