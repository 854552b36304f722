import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image resampled (Lanczos-3, premultiplied) to `size` points, at its own scale.
    ///
    /// The pixel size is `size × scale`, rounded. Returns the image itself when that is its current
    /// pixel size, or when `size` is not finite or rounds to less than one pixel in a direction.
    /// Animations are resized frame by frame, keeping durations and the loop count.
    public func resize(to size: CGSize) -> KFCrossPlatformImage {
        guard let pixels = Self.pixelSize(of: size, scale: base.scale) else { return base }
        return base.resampled(width: pixels.width, height: pixels.height)
    }

    /// The image resized to `size` points adapted by `contentMode` (see ``ContentMode``).
    ///
    /// `.none` stretches to `size`; `.aspectFit` and `.aspectFill` keep the aspect ratio, so one side
    /// may differ from `size`. Nothing is cropped.
    public func resize(to size: CGSize, for contentMode: ContentMode) -> KFCrossPlatformImage {
        resize(to: base.size.kf.resize(to: size, for: contentMode))
    }

    /// The same pixels at another scale (so another size in points); the image itself when the scale is
    /// unchanged, not finite or not positive.
    public func scaled(to scale: CGFloat) -> KFCrossPlatformImage {
        guard scale.isFinite, scale > 0, scale != base.scale else { return base }
        return base.withScale(scale)
    }

    /// `size` points at `scale` as whole pixels; `nil` when not finite or under one pixel.
    static func pixelSize(of size: CGSize, scale: CGFloat) -> (width: Int, height: Int)? {
        let width = (size.width * scale).rounded()
        let height = (size.height * scale).rounded()
        guard width.isFinite, height.isFinite, width >= 1, height >= 1,
              width <= CGFloat(Int32.max), height <= CGFloat(Int32.max)
        else { return nil }
        return (Int(width), Int(height))
    }
}

extension KFCrossPlatformImage {
    /// Every frame resampled to `width` × `height` pixels; `self` when that is the current size.
    ///
    /// For processors: sizes must be positive. Scale, durations and loop count are kept.
    func resampled(width: Int, height: Int) -> KFCrossPlatformImage {
        guard width != pixelWidth || height != pixelHeight else { return self }
        return mapFrames { Resampler.resample($0, width: width, height: height) } ?? self
    }
}
