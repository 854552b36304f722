/// imgproxy's geometry options, resolved against the source's size the way imgproxy 4's
/// `processing` package resolves them (`prepare.go`, `crop.go`, `scale.go`, `extend.go`, `padding.go`).
///
/// ``steps(width:height:)`` follows imgproxy's pipeline order: crop (before scaling, gravity
/// turned back through the requested rotation) → scale → rotate and flip → crop to the result
/// (`fill`, at gravity; `sm` becomes a saliency crop) → extend → extend to aspect ratio → padding.
/// Sizes round as Go's `math.Round` (half away from zero), positions and paddings as
/// `math.RoundToEven`, exactly as imgproxy's `imath` does. The image handed in is already upright
/// (EXIF orientation applied), as imgproxy's `auto_rotate` default leaves it.
public struct ImgproxyGeometry: RenditionGeometryRule {
    /// imgproxy's resizing types.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Fit inside the box, keeping the aspect ratio.
        case fit
        /// Cover the box, then crop to it at the gravity.
        case fill
        /// Like `fill`, but never enlarging: the crop keeps the box's aspect ratio instead.
        case fillDown = "fill-down"
        /// Exactly the box, aspect ratio ignored.
        case force
        /// `fill` when source and box have the same orientation, else `fit`.
        case auto
    }

    /// `rt`, default `fit`.
    public var resizingType: ResizingType = .fit
    /// Requested width; 0 takes it from the height (or, with `force`, keeps the source's).
    public var width = 0
    /// Requested height; 0 as for ``width``.
    public var height = 0
    /// `mw`: the result is at least this wide (then cropped to ``width`` when that is set).
    public var minWidth = 0
    /// `mh`: as ``minWidth``, for the height.
    public var minHeight = 0
    /// `z` horizontal factor, applied after sizing.
    public var zoomWidth = 1.0
    /// `z` vertical factor.
    public var zoomHeight = 1.0
    /// `dpr`: multiplies sizes, pixel offsets and paddings (lowered when the image cannot be enlarged).
    public var dpr = 1.0
    /// `el`: allow scaling up.
    public var enlarge = false
    /// Extend the result to the requested size.
    public var extend = false
    /// Where the image sits on the extended canvas.
    public var extendGravity = ImgproxyGravity.center
    /// Extend the result to the requested aspect ratio.
    public var extendAspectRatio = false
    /// Where the image sits on the aspect-ratio canvas.
    public var extendAspectRatioGravity = ImgproxyGravity.center
    /// Gravity of the crop to the result (and of `crop` when it names none).
    public var gravity = ImgproxyGravity.center
    /// `crop` width: ≥ 1 pixels, below 1 a fraction of the source, 0 the whole side.
    public var cropWidth = 0.0
    /// `crop` height, read as ``cropWidth``.
    public var cropHeight = 0.0
    /// Gravity of `crop`; `nil` takes ``gravity``.
    public var cropGravity: ImgproxyGravity?
    /// Clockwise degrees, a multiple of 90.
    public var rotate = 0
    /// `fl` first argument: mirror left-right.
    public var flipHorizontal = false
    /// `fl` second argument: mirror top-bottom.
    public var flipVertical = false
    /// `pd` top, in pixels before DPR.
    public var paddingTop = 0
    /// `pd` right.
    public var paddingRight = 0
    /// `pd` bottom.
    public var paddingBottom = 0
    /// `pd` left.
    public var paddingLeft = 0
    /// `bg`; extended and padded areas are transparent when `nil`.
    public var background: RenditionColor?

    /// Geometry that leaves the image as it is.
    public init() {}

    /// Every field, for cache keys.
    public var description: String {
        var fields = ["imgproxy", "rt=\(resizingType.rawValue)", "w=\(width)", "h=\(height)", "mw=\(minWidth)",
                      "mh=\(minHeight)", "z=\(zoomWidth)x\(zoomHeight)", "dpr=\(dpr)", "el=\(enlarge)",
                      "ex=\(extend):\(extendGravity)", "exar=\(extendAspectRatio):\(extendAspectRatioGravity)",
                      "g=\(gravity)", "c=\(cropWidth)x\(cropHeight)"]
        fields.append("cg=" + (cropGravity.map(\.description) ?? "g"))
        fields += ["rot=\(rotate)", "fl=\(flipHorizontal):\(flipVertical)",
                   "pd=\(paddingTop):\(paddingRight):\(paddingBottom):\(paddingLeft)",
                   "bg=" + (background.map(\.description) ?? "none")]
        return fields.joined(separator: ",")
    }

    /// Whether any padding is asked for.
    var paddingEnabled: Bool { paddingTop != 0 || paddingRight != 0 || paddingBottom != 0 || paddingLeft != 0 }

    /// The requested rotation in quarter turns clockwise, 0...3 (a negative angle turns the other way).
    var quarterTurns: Int { ((rotate / 90) % 4 + 4) % 4 }

    /// imgproxy's pipeline for an upright `sourceWidth`×`sourceHeight` image; empty for an empty image.
    public func steps(width sourceWidth: Int, height sourceHeight: Int) -> [GeometryStep] {
        guard sourceWidth > 0, sourceHeight > 0 else { return [] }
        let turned = quarterTurns % 2 == 1
        // imgproxy sizes everything in the orientation of the result.
        let srcWidth = turned ? sourceHeight : sourceWidth
        let srcHeight = turned ? sourceWidth : sourceHeight
        let cropW = Self.cropSize(srcWidth, cropWidth)
        let cropH = Self.cropSize(srcHeight, cropHeight)
        let plan = ImgproxyScalePlan(
            geometry: self,
            widthToScale: ImgproxyMath.minNonZero(cropW, srcWidth),
            heightToScale: ImgproxyMath.minNonZero(cropH, srcHeight))

        var steps: [GeometryStep] = []
        var size = (width: sourceWidth, height: sourceHeight)

        // Crop, on the image before rotation: swap the sides, turn the gravity back.
        if cropW != 0 || cropH != 0 {
            let crop = (turned ? (cropH, cropW) : (cropW, cropH))
            let cropGravity = (cropGravity ?? gravity)
                .rotatedAndFlipped(angle: quarterTurns * 90, flipX: flipHorizontal, flipY: flipVertical)
            if let step = Self.crop(size, width: crop.0, height: crop.1, gravity: cropGravity, dpr: 1) {
                steps.append(step.step)
                size = step.size
            }
        }

        // Scale, with the scales swapped for a turned result.
        if plan.widthScale != 1 || plan.heightScale != 1 {
            let (scaleX, scaleY) = turned ? (plan.heightScale, plan.widthScale) : (plan.widthScale, plan.heightScale)
            let scaled = (width: max(1, ImgproxyMath.scale(size.width, scaleX)),
                          height: max(1, ImgproxyMath.scale(size.height, scaleY)))
            if scaled != size {
                steps.append(.scale(width: scaled.width, height: scaled.height))
                size = scaled
            }
        }

        if quarterTurns != 0 {
            steps.append(.rotate(quarterTurns: quarterTurns))
            if turned { size = (size.height, size.width) }
        }
        if flipHorizontal || flipVertical {
            steps.append(.flip(horizontal: flipHorizontal, vertical: flipVertical))
        }

        if let step = Self.crop(size, width: plan.resultCropWidth, height: plan.resultCropHeight,
                                gravity: gravity, dpr: plan.dprScale) {
            steps.append(step.step)
            size = step.size
        }

        let fill = background ?? .clear
        if extend, let step = Self.extend(size, width: plan.targetWidth, height: plan.targetHeight,
                                          gravity: extendGravity, dpr: plan.dprScale, fill: fill) {
            steps.append(step.step)
            size = step.size
        }
        if extendAspectRatio, plan.aspectWidth > 0, plan.aspectHeight > 0,
           let step = Self.extend(size, width: plan.aspectWidth, height: plan.aspectHeight,
                                  gravity: extendAspectRatioGravity, dpr: plan.dprScale, fill: fill) {
            steps.append(step.step)
            size = step.size
        }

        if paddingEnabled {
            let top = ImgproxyMath.scaleToEven(paddingTop, plan.dprScale)
            let right = ImgproxyMath.scaleToEven(paddingRight, plan.dprScale)
            let bottom = ImgproxyMath.scaleToEven(paddingBottom, plan.dprScale)
            let left = ImgproxyMath.scaleToEven(paddingLeft, plan.dprScale)
            if top != 0 || right != 0 || bottom != 0 || left != 0 {
                steps.append(.extend(width: size.width + left + right, height: size.height + top + bottom,
                                     x: left, y: top, background: fill))
            }
        }
        return steps
    }

    /// `CalcCropSize`: 0 is none, ≥ 1 pixels (truncated), below 1 a fraction of `side` (at least 1).
    static func cropSize(_ side: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return ImgproxyMath.int(crop.rounded(.towardZero)) }
        return max(1, ImgproxyMath.scale(side, crop))
    }

    /// imgproxy's `cropImage`: nothing when the box covers the image, else a crop at `gravity`.
    static func crop(_ size: (width: Int, height: Int), width: Int, height: Int, gravity: ImgproxyGravity,
                     dpr: Double) -> (step: GeometryStep, size: (width: Int, height: Int))? {
        guard width != 0 || height != 0 else { return nil }
        let cropWidth = min(ImgproxyMath.minNonZero(width, size.width), size.width)
        let cropHeight = min(ImgproxyMath.minNonZero(height, size.height), size.height)
        guard cropWidth < size.width || cropHeight < size.height else { return nil }
        if gravity.kind == .smart {
            return (.smartCrop(width: cropWidth, height: cropHeight), (cropWidth, cropHeight))
        }
        let origin = gravity.position(width: size.width, height: size.height,
                                      innerWidth: cropWidth, innerHeight: cropHeight, dpr: dpr)
        return (.crop(x: origin.x, y: origin.y, width: cropWidth, height: cropHeight), (cropWidth, cropHeight))
    }

    /// imgproxy's `extendImage`: nothing unless a side grows; a side ≤ 0 keeps the image's.
    static func extend(_ size: (width: Int, height: Int), width: Int, height: Int, gravity: ImgproxyGravity,
                       dpr: Double, fill: RenditionColor) -> (step: GeometryStep, size: (width: Int, height: Int))? {
        guard width > size.width || height > size.height else { return nil }
        let canvasWidth = width <= 0 ? size.width : width
        let canvasHeight = height <= 0 ? size.height : height
        let origin = gravity.position(width: canvasWidth, height: canvasHeight,
                                      innerWidth: size.width, innerHeight: size.height, dpr: dpr)
        return (.extend(width: canvasWidth, height: canvasHeight, x: origin.x, y: origin.y, background: fill),
                (canvasWidth, canvasHeight))
    }
}
