import Foundation

/// How ``FittingImageProcessor`` brings an image to its box.
public enum FittingMode: String, Sendable, Hashable, CaseIterable {
    /// The largest size with the image's aspect ratio inside the box.
    case fit
    /// The box exactly: the image is scaled to cover it, and what overflows is cropped at a gravity.
    case fill
    /// The box exactly, stretched: the aspect ratio is not kept.
    case force
}

/// Resizes to a box, as image servers do (imgproxy's `fit`, `fill` and `force`), in one crop and
/// one Lanczos-3 resample.
///
/// The box is `size × options.scaleFactor` pixels, each side rounded half away from zero; a side
/// of 0 leaves that direction free (its size comes from the other side and the aspect ratio; `fill`
/// then works as `fit`), and a box of 0×0 keeps the image's size. Results are at least 1×1.
/// Without `allowsEnlarging` nothing is scaled up: `fit` and `force` stop at the image's own size,
/// and `fill` on an image smaller than the box crops the largest part with the box's aspect ratio at
/// `gravity` instead. Pixel offsets of `gravity` count in pixels of the result, at
/// `options.scaleFactor`; ``Gravity/smart`` places the crop where
/// ``KFCrossPlatformImage/smartCropRect(width:height:)`` finds the subject. `.data` is decoded at the smallest size a JPEG or WebP decoder can give
/// that still covers the result (a JPEG at 1/2, 1/4 or 1/8), so a large photo never exists at full
/// size. Every frame of an animation is resized. The result has `options.scaleFactor`. `nil` when the
/// data does not decode, a side of `size` is negative or not finite, or the result would exceed
/// the options' decoding limits.
public struct FittingImageProcessor: ImageProcessor {
    /// The box in points; a side of 0 leaves that direction free.
    public let size: CGSize
    /// How the image is brought to the box.
    public let mode: FittingMode
    /// Where `fill` crops; ignored by `fit` and `force`.
    public let gravity: Gravity
    /// Whether the image may be scaled up.
    public let allowsEnlarging: Bool

    /// `"com.onevcat.Kingfisher.FittingImageProcessor(size:(w, h),mode:M,gravity:G,allowsEnlarging:B)"`.
    public let identifier: String

    /// Makes a processor fitting to `size` points under `mode`.
    public init(size: CGSize, mode: FittingMode = .fit, gravity: Gravity = .center, allowsEnlarging: Bool = false) {
        self.size = size
        self.mode = mode
        self.gravity = gravity
        self.allowsEnlarging = allowsEnlarging
        identifier = "com.onevcat.Kingfisher.FittingImageProcessor(size:\(size.identifierDescription),mode:\(mode.rawValue),"
            + "gravity:\(gravity.description),allowsEnlarging:\(allowsEnlarging))"
    }

    /// The fitted image; see the type's description.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        guard let target = GeometryLimits.pixels(size, scale: options.scaleFactor, allowsZero: true) else { return nil }
        let gravity = gravity.scaled(by: options.scaleFactor)
        let plan: FittingPlan
        let source: KFCrossPlatformImage
        switch item {
        case .image(let image):
            plan = makePlan(image.pixelWidth, image.pixelHeight, target, gravity)
            source = image
        case .data(let data):
            guard let header = try? ImageHeader(data: data) else { return nil }
            let upright = header.orientedPixelSize
            guard upright.width > 0, upright.height > 0 else { return nil }
            plan = makePlan(upright.width, upright.height, target, gravity)
            guard GeometryLimits.allows(width: plan.width, height: plan.height, frames: 1, options: options) else { return nil }
            var decoding = options.imageCreatingOptions
            decoding.minimumPixelSize = plan.minimumSourceSize
            guard let decoded = try? KFCrossPlatformImage(data: data, options: decoding) else { return nil }
            source = decoded
        }
        guard GeometryLimits.allows(width: plan.width, height: plan.height, frames: source.frames.count, options: options) else { return nil }
        return plan.apply(to: source).kf.scaled(to: options.scaleFactor)
    }

    private func makePlan(_ width: Int, _ height: Int, _ target: (width: Int, height: Int), _ gravity: Gravity) -> FittingPlan {
        FittingPlan(sourceWidth: width, sourceHeight: height, targetWidth: target.width, targetHeight: target.height,
                    mode: mode, gravity: gravity, allowsEnlarging: allowsEnlarging)
    }
}
