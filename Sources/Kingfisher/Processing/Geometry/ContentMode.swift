import Foundation

/// How an image's size is adapted to a target size when resizing.
public enum ContentMode: Sendable, Hashable {
    /// Stretch to exactly the target size; the aspect ratio may change.
    case none
    /// The largest size with the image's aspect ratio that fits inside the target size.
    case aspectFit
    /// The smallest size with the image's aspect ratio that covers the target size. Nothing is
    /// cropped: one side comes out longer than the target; append a ``CroppingImageProcessor`` for
    /// an exact size.
    case aspectFill
}

extension CGSize: KingfisherCompatibleValue {}

extension KingfisherWrapper where Base == CGSize {
    /// The size `base` takes when adapted to `size` under `contentMode`; see ``ContentMode``.
    ///
    /// Aspect-preserving results are rounded to whole points, as Kingfisher does.
    public func resize(to size: CGSize, for contentMode: ContentMode) -> CGSize {
        switch contentMode {
        case .none: return size
        case .aspectFit: return constrained(size)
        case .aspectFill: return filling(size)
        }
    }

    /// The largest size with `base`'s aspect ratio inside `size`, in whole points.
    public func constrained(_ size: CGSize) -> CGSize {
        let widthForHeight = (aspectRatio * size.height).rounded()
        let heightForWidth = (size.width / aspectRatio).rounded()
        return widthForHeight > size.width
            ? CGSize(width: size.width, height: heightForWidth)
            : CGSize(width: widthForHeight, height: size.height)
    }

    /// The smallest size with `base`'s aspect ratio covering `size`, in whole points.
    public func filling(_ size: CGSize) -> CGSize {
        let widthForHeight = (aspectRatio * size.height).rounded()
        let heightForWidth = (size.width / aspectRatio).rounded()
        return widthForHeight < size.width
            ? CGSize(width: size.width, height: heightForWidth)
            : CGSize(width: widthForHeight, height: size.height)
    }

    /// The rectangle of `size` placed inside `base` at `anchor`, clipped to `base`.
    ///
    /// `anchor` is clamped to 0...1 in each direction: (0, 0) puts the rectangle at the top left,
    /// (0.5, 0.5) centres it, (1, 1) puts it at the bottom right. Where `size` is larger than `base`
    /// in a direction, the result spans all of `base` in that direction.
    public func constrainedRect(for size: CGSize, anchor: CGPoint) -> CGRect {
        let anchorX = anchor.x.isNaN ? 0.5 : anchor.x.clamped(to: 0...1)
        let anchorY = anchor.y.isNaN ? 0.5 : anchor.y.clamped(to: 0...1)
        let placed = CGRect(x: anchorX * (base.width - size.width), y: anchorY * (base.height - size.height),
                            width: size.width, height: size.height)
        return CGRect(origin: .zero, size: base).intersection(placed)
    }

    private var aspectRatio: CGFloat {
        base.height == 0 ? 1 : base.width / base.height
    }
}
