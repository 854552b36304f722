import Foundation

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// The image with `border` drawn inside its edge, at the same size and scale.
    ///
    /// The line width is in points (pixels are points × `scale`). The border follows Kingfisher's
    /// stroke geometry: its centre line is the image rectangle inset by half the line width, with
    /// corners of `radius − lineWidth / 2` (the radius computed on that inset rectangle, clamped to
    /// half its shorter side), so the outer edge of a `.point(r)` border matches a round-corner
    /// image of radius `r`. A line width that is not positive, or not finite, leaves the image as it is.
    public func addingBorder(_ border: Border) -> KFCrossPlatformImage {
        let lineWidth = border.lineWidth
        guard lineWidth.isFinite, lineWidth > 0 else { return base }
        let size = base.size
        let strokeSize = CGSize(width: max(size.width - lineWidth, 0), height: max(size.height - lineWidth, 0))
        let computed = border.radius.compute(with: strokeSize) - lineWidth / 2
        let limit = min(strokeSize.width, strokeSize.height) / 2
        let centreRadius = computed.isFinite ? min(max(computed, 0), limit) : 0
        // A stroked arc of radius c and width w spans radii c − w/2 ... c + w/2 about the arc's
        // centre; a zero radius is a mitred square corner.
        let outerRadius = centreRadius > 0 ? centreRadius + lineWidth / 2 : 0
        let innerRadius = max(centreRadius - lineWidth / 2, 0)
        let scale = base.scale
        let color = border.color.premultiplied
        return base.mapFrames { frame in
            BorderPainting.paint(frame, lineWidth: Double(lineWidth * scale), outerRadius: Double(outerRadius * scale),
                                 innerRadius: Double(innerRadius * scale), corners: border.roundingCorners, color: color)
        } ?? base
    }
}
