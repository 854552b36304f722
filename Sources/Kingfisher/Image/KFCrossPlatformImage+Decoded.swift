import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image upright: the image itself, since every decoder here applies the EXIF orientation
    /// and processors only make upright images (Kingfisher redraws a `UIImage` whose
    /// `imageOrientation` is not `.up`).
    public var normalized: KFCrossPlatformImage {
        base
    }

    /// The image ready to draw: the image itself, whose pixels are decoded already (Kingfisher
    /// forces a `UIImage`'s lazy decoding here).
    public var decoded: KFCrossPlatformImage {
        decoded(scale: base.scale)
    }

    /// The image ready to draw at `scale`: the same pixels with `scale` (an invalid scale counts as
    /// 1). An animation, decoded or lazy, is returned as it is, as in Kingfisher.
    public func decoded(scale: CGFloat) -> KFCrossPlatformImage {
        guard !base.isAnimated, base.frameSource == nil, base.scale != scale else { return base }
        return base.withScale(scale)
    }
}
