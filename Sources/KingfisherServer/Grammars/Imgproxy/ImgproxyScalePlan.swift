/// The scales and sizes imgproxy derives from its options and the size to scale (`calcScale` and
/// `calcSizes` of imgproxy's `processing/prepare.go`), in the orientation of the result.
struct ImgproxyScalePlan {
    /// Horizontal scale factor.
    private(set) var widthScale = 1.0
    /// Vertical scale factor.
    private(set) var heightScale = 1.0
    /// The DPR actually applied (lowered when the image cannot be enlarged).
    private(set) var dprScale = 1.0
    /// The requested size × DPR × zoom (0 for an unset side).
    private(set) var targetWidth = 0
    private(set) var targetHeight = 0
    /// The size after scaling.
    private(set) var scaledWidth = 0
    private(set) var scaledHeight = 0
    /// The box the scaled image is cropped to.
    private(set) var resultCropWidth = 0
    private(set) var resultCropHeight = 0
    /// The canvas of `extend_aspect_ratio` (0 when not used).
    private(set) var aspectWidth = 0
    private(set) var aspectHeight = 0

    /// The plan for `geometry` on an image of `widthToScale`×`heightToScale` (after `crop`).
    init(geometry: ImgproxyGeometry, widthToScale: Int, heightToScale: Int) {
        computeScale(geometry, width: widthToScale, height: heightToScale)
        computeSizes(geometry, width: widthToScale, height: heightToScale)
    }

    /// `calcScale`.
    private mutating func computeScale(_ g: ImgproxyGeometry, width: Int, height: Int) {
        var widthShrink = 1.0
        var heightShrink = 1.0
        let srcWidth = Double(width)
        let srcHeight = Double(height)
        let dstWidth = g.width != 0 ? Double(g.width) : srcWidth
        let dstHeight = g.height != 0 ? Double(g.height) : srcHeight
        if dstWidth != srcWidth { widthShrink = srcWidth / dstWidth }
        if dstHeight != srcHeight { heightShrink = srcHeight / dstHeight }

        if widthShrink != 1 || heightShrink != 1 {
            var type = g.resizingType
            if type == .auto {
                let sourceLandscape = srcWidth - srcHeight >= 0
                let targetLandscape = dstWidth - dstHeight >= 0
                type = sourceLandscape == targetLandscape ? .fill : .fit
            }
            if g.width == 0 && type != .force {
                widthShrink = heightShrink
            } else if g.height == 0 && type != .force {
                heightShrink = widthShrink
            } else if type == .fit {
                widthShrink = max(widthShrink, heightShrink)
                heightShrink = widthShrink
            } else if type == .fill || type == .fillDown {
                widthShrink = min(widthShrink, heightShrink)
                heightShrink = widthShrink
            }
        }

        widthShrink /= g.zoomWidth
        heightShrink /= g.zoomHeight
        dprScale = g.dpr

        if !g.enlarge {
            let minShrink = min(widthShrink, heightShrink)
            if minShrink < 1 {
                widthShrink /= minShrink
                heightShrink /= minShrink
                // Without extension, a DPR that cannot be reached by enlarging is compensated.
                if !g.extend { dprScale /= minShrink }
            }
            dprScale = min(dprScale, min(widthShrink, heightShrink))
        }

        if g.minWidth > 0 {
            let minShrink = srcWidth / Double(g.minWidth)
            if minShrink < widthShrink {
                heightShrink /= widthShrink / minShrink
                widthShrink = minShrink
            }
        }
        if g.minHeight > 0 {
            let minShrink = srcHeight / Double(g.minHeight)
            if minShrink < heightShrink {
                widthShrink /= heightShrink / minShrink
                heightShrink = minShrink
            }
        }

        widthShrink /= dprScale
        heightShrink /= dprScale
        widthShrink = min(widthShrink, srcWidth)
        heightShrink = min(heightShrink, srcHeight)
        widthScale = 1 / widthShrink
        heightScale = 1 / heightShrink
    }

    /// `calcSizes`.
    private mutating func computeSizes(_ g: ImgproxyGeometry, width: Int, height: Int) {
        targetWidth = ImgproxyMath.scale(g.width, dprScale * g.zoomWidth)
        targetHeight = ImgproxyMath.scale(g.height, dprScale * g.zoomHeight)
        scaledWidth = ImgproxyMath.scale(width, widthScale)
        scaledHeight = ImgproxyMath.scale(height, heightScale)

        resultCropWidth = targetWidth
        resultCropHeight = targetHeight
        if g.resizingType == .fillDown, !g.enlarge, scaledWidth > 0, scaledHeight > 0 {
            let diffWidth = Double(targetWidth) / Double(scaledWidth)
            let diffHeight = Double(targetHeight) / Double(scaledHeight)
            if diffWidth > diffHeight && diffWidth > 1 {
                resultCropHeight = ImgproxyMath.scale(scaledWidth, Double(targetHeight) / Double(targetWidth))
                resultCropWidth = scaledWidth
            } else if diffHeight > diffWidth && diffHeight > 1 {
                resultCropWidth = ImgproxyMath.scale(scaledHeight, Double(targetWidth) / Double(targetHeight))
                resultCropHeight = scaledHeight
            }
        }

        if g.extendAspectRatio, targetWidth > 0, targetHeight > 0 {
            let outWidth = ImgproxyMath.minNonZero(scaledWidth, resultCropWidth)
            let outHeight = ImgproxyMath.minNonZero(scaledHeight, resultCropHeight)
            guard outWidth > 0, outHeight > 0 else { return }
            let diffWidth = Double(targetWidth) / Double(outWidth)
            let diffHeight = Double(targetHeight) / Double(outHeight)
            if diffHeight > diffWidth {
                aspectHeight = ImgproxyMath.scale(outWidth, Double(targetHeight) / Double(targetWidth))
                aspectWidth = outWidth
            } else if diffWidth > diffHeight {
                aspectWidth = ImgproxyMath.scale(outHeight, Double(targetWidth) / Double(targetHeight))
                aspectHeight = outHeight
            }
        }
    }
}
