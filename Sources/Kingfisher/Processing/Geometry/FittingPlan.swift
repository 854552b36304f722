import Foundation

/// What ``FittingImageProcessor`` does to a source of a given pixel size: the part of the source it
/// keeps and the exact size it resamples that part to, worked out once from the header or the image.
struct FittingPlan {
    /// Width of the source the plan was made for, in pixels.
    let sourceWidth: Int
    /// Height of the source the plan was made for, in pixels.
    let sourceHeight: Int
    /// The part of the source kept, in its pixels.
    let crop: (x: Int, y: Int, width: Int, height: Int)
    /// Width of the result in pixels.
    let width: Int
    /// Height of the result in pixels.
    let height: Int
    /// Whether the crop is placed on the pixels (``Gravity/smart``) rather than by `crop`'s origin.
    let placesSmartly: Bool

    /// The plan for a `sourceWidth` × `sourceHeight` source and a target of `targetWidth` ×
    /// `targetHeight` pixels, where 0 leaves a side free; the source size must be positive.
    init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int,
         mode: FittingMode, gravity: Gravity, allowsEnlarging: Bool) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        let full = (x: 0, y: 0, width: sourceWidth, height: sourceHeight)
        let boxed = targetWidth > 0 && targetHeight > 0
        placesSmartly = mode == .fill && boxed && gravity == .smart
        switch mode {
        case .fill where boxed:
            // The largest part of the source with the target's aspect ratio.
            let widthLimits = targetWidth * sourceHeight >= targetHeight * sourceWidth
            let cropWidth = widthLimits ? sourceWidth : Self.side(Double(targetWidth) * Double(sourceHeight) / Double(targetHeight), limit: sourceWidth)
            let cropHeight = widthLimits ? Self.side(Double(targetHeight) * Double(sourceWidth) / Double(targetWidth), limit: sourceHeight) : sourceHeight
            let enlarges = targetWidth > cropWidth || targetHeight > cropHeight
            (width, height) = enlarges && !allowsEnlarging ? (cropWidth, cropHeight) : (targetWidth, targetHeight)
            // Pixel offsets count in result pixels; the crop is placed in source pixels.
            let placement = gravity.scaled(by: CGFloat(cropWidth) / CGFloat(width))
            let rect = placement.rect(forCropWidth: cropWidth, height: cropHeight, inImageWidth: sourceWidth, height: sourceHeight)
            crop = (Int(rect.minX), Int(rect.minY), cropWidth, cropHeight)
        case .force:
            crop = full
            let fitted = Self.fitted(sourceWidth, sourceHeight, targetWidth, targetHeight)
            let width = targetWidth > 0 ? targetWidth : fitted.width
            let height = targetHeight > 0 ? targetHeight : fitted.height
            (self.width, self.height) = allowsEnlarging ? (width, height) : (min(width, sourceWidth), min(height, sourceHeight))
        case .fit, .fill:
            crop = full
            let fitted = Self.fitted(sourceWidth, sourceHeight, targetWidth, targetHeight)
            let enlarges = fitted.width > sourceWidth || fitted.height > sourceHeight
            (width, height) = enlarges && !allowsEnlarging ? (sourceWidth, sourceHeight) : fitted
        }
    }

    /// The smallest source size whose kept part still has at least the result's pixels, for
    /// ``ImageCreatingOptions/minimumPixelSize``; `nil` when that is the full source size.
    var minimumSourceSize: CGSize? {
        let width = (Double(self.width) * Double(sourceWidth) / Double(crop.width)).rounded(.up)
        let height = (Double(self.height) * Double(sourceHeight) / Double(crop.height)).rounded(.up)
        guard width < Double(sourceWidth) || height < Double(sourceHeight) else { return nil }
        return CGSize(width: min(width, Double(sourceWidth)), height: min(height, Double(sourceHeight)))
    }

    /// The plan carried out on `image`, which is the source or the source decoded at a reduced scale
    /// (the crop is then mapped in proportion): one crop, one resample, on every frame.
    func apply(to image: KFCrossPlatformImage) -> KFCrossPlatformImage {
        var kept = crop
        if image.pixelWidth != sourceWidth || image.pixelHeight != sourceHeight {
            let scaleX = Double(image.pixelWidth) / Double(sourceWidth)
            let scaleY = Double(image.pixelHeight) / Double(sourceHeight)
            let bounds = KFCrossPlatformImage.pixelBounds(
                CGRect(x: Double(crop.x) * scaleX, y: Double(crop.y) * scaleY,
                       width: Double(crop.width) * scaleX, height: Double(crop.height) * scaleY),
                width: image.pixelWidth, height: image.pixelHeight)
            kept = bounds
        }
        if placesSmartly {
            let rect = image.smartCropRect(width: kept.width, height: kept.height)
            kept = (Int(rect.minX), Int(rect.minY), kept.width, kept.height)
        }
        return image.cropped(x: kept.x, y: kept.y, width: kept.width, height: kept.height)
            .resampled(width: width, height: height)
    }

    /// The largest size with the source's aspect ratio inside the target, a 0 side of the target
    /// leaving that side free; the source size when both are free. Sides are at least 1.
    private static func fitted(_ sourceWidth: Int, _ sourceHeight: Int, _ targetWidth: Int, _ targetHeight: Int) -> (width: Int, height: Int) {
        let byWidth = targetWidth > 0 && (targetHeight == 0 || targetWidth * sourceHeight <= targetHeight * sourceWidth)
        if byWidth {
            return (targetWidth, side(Double(sourceHeight) * Double(targetWidth) / Double(sourceWidth), limit: .max))
        }
        if targetHeight > 0 {
            return (side(Double(sourceWidth) * Double(targetHeight) / Double(sourceHeight), limit: .max), targetHeight)
        }
        return (sourceWidth, sourceHeight)
    }

    /// `value` rounded half away from zero, within 1...`limit`.
    private static func side(_ value: Double, limit: Int) -> Int {
        guard value.isFinite else { return 1 }
        return Int(min(max(value.rounded(), 1), Double(min(limit, Int(Int32.max)))))
    }
}
