import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image drawn into `size` points with `corners` rounded by `radius`, anti-aliased.
    ///
    /// When `size` differs from the image's size, the image is stretched to it first (see
    /// ``resize(to:)``); the scale is kept. The radius is computed on `size` and clamped to half its
    /// shorter side. Outside the arcs the result is transparent, or `backgroundColor`, over which the
    /// whole image is then composited. Returns the image itself when `size` is not finite or is under
    /// one pixel. Animations are processed frame by frame.
    public func image(withRadius radius: Radius, fit size: CGSize, roundingCorners corners: RectCorner = .all,
                      backgroundColor: KFCrossPlatformColor? = nil) -> KFCrossPlatformImage {
        guard Self.pixelSize(of: size, scale: base.scale) != nil else { return base }
        let canvas = resize(to: size)
        let points = radius.compute(with: size)
        let pixels = points.isFinite ? Double(points * canvas.scale) : 0
        let background = backgroundColor?.premultiplied
        let opaque = canvas.isOpaque
        return canvas.mapFrames { frame in
            CornerClipping.clip(frame, radius: pixels, corners: corners, background: background, opaque: opaque)
        } ?? canvas
    }

    /// Kingfisher's older spelling of ``image(withRadius:fit:roundingCorners:backgroundColor:)`` with
    /// the radius in points.
    public func image(withRoundRadius radius: CGFloat, fit size: CGSize, roundingCorners corners: RectCorner = .all,
                      backgroundColor: KFCrossPlatformColor? = nil) -> KFCrossPlatformImage {
        image(withRadius: .point(radius), fit: size, roundingCorners: corners, backgroundColor: backgroundColor)
    }
}
