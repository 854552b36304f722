extension ThumborGeometry {
    /// thumbor's operations on a `width`×`height` source: manual crop, crop to the target's aspect
    /// (or fit-in), resize, flips, then the geometric filters in URL order.
    ///
    /// Where thumbor itself would fail (a side computed as 0 px, `orig` in `no_upscale()`), the
    /// steps keep at least one pixel and treat `orig` as the image's side. Crops are clamped.
    public func steps(width: Int, height: Int) -> [GeometryStep] {
        var plan = ThumborPlan(geometry: self, width: max(1, width), height: max(1, height))
        plan.run()
        return plan.steps
    }

    /// The steps after a trim that cut the image out at `origin`: the manual crop is moved by it,
    /// as thumbor moves it after trimming.
    public func steps(width: Int, height: Int, trimmedAt origin: (x: Int, y: Int)) -> [GeometryStep] {
        guard origin != (0, 0), let crop else { return steps(width: width, height: height) }
        var moved = self
        moved.crop = Edges(left: crop.left - origin.x, top: crop.top - origin.y, right: crop.right - origin.x,
                           bottom: crop.bottom - origin.y)
        return moved.steps(width: width, height: height)
    }
}

/// The state of thumbor's `Transformer` while one geometry is resolved: the image's current size,
/// the request's width and height as thumbor mutates them, and the steps so far.
struct ThumborPlan {
    /// Python's number rules.
    typealias Math = PythonArithmetic
    /// The geometry being resolved.
    let geometry: ThumborGeometry
    /// The image's current width (thumbor's `engine.size[0]`).
    var width: Int
    /// The image's current height.
    var height: Int
    /// `context.request.width`, as `no_upscale()` and fit-in change it.
    var requestWidth: ThumborGeometry.Size
    /// `context.request.height`, likewise.
    var requestHeight: ThumborGeometry.Size
    /// `target_width`, a float as in thumbor.
    var targetWidth = 0.0
    /// `target_height`.
    var targetHeight = 0.0
    /// The manual crop as applied (clamped), when there was one.
    var cropEdges: ThumborGeometry.Edges?
    /// The steps so far.
    var steps: [GeometryStep] = []

    /// A plan for `geometry` on a `width`×`height` source.
    init(geometry: ThumborGeometry, width: Int, height: Int) {
        self.geometry = geometry
        self.width = width
        self.height = height
        requestWidth = geometry.width
        requestHeight = geometry.height
    }

    /// Runs thumbor's phases in order.
    mutating func run() {
        if geometry.noUpscale {
            if case .pixels(let value) = requestWidth { requestWidth = .pixels(min(value, width)) }
            if case .pixels(let value) = requestHeight { requestHeight = .pixels(min(value, height)) }
        }
        manualCrop()
        calculateTargetDimensions()
        if geometry.fitIn {
            fitInResize()
        } else {
            if !geometry.stretch { autoCrop() }
            if targetWidth != Double(width) || targetHeight != Double(height) {
                scale(to: Math.int(targetWidth == 0 ? 1 : targetWidth), Math.int(targetHeight == 0 ? 1 : targetHeight))
            }
        }
        if geometry.flipHorizontally || geometry.flipVertically {
            steps.append(.flip(horizontal: geometry.flipHorizontally, vertical: geometry.flipVertically))
        }
        for step in geometry.postSteps { apply(step) }
    }

    /// `manual_crop`: the rectangle clamped to the image; an empty one is dropped.
    mutating func manualCrop() {
        guard let crop = geometry.crop, crop.left > 0 || crop.top > 0 || crop.right > 0 || crop.bottom > 0 else { return }
        let left = min(max(crop.left, 0), width), right = min(max(crop.right, 0), width)
        let top = min(max(crop.top, 0), height), bottom = min(max(crop.bottom, 0), height)
        guard left < right, top < bottom else { return }
        cropEdges = ThumborGeometry.Edges(left: left, top: top, right: right, bottom: bottom)
        steps.append(.crop(x: left, y: top, width: right - left, height: bottom - top))
        width = right - left
        height = bottom - top
    }

    /// `_calculate_target_dimensions`: 0 follows the other side (`round` ties to even), `orig` the image.
    mutating func calculateTargetDimensions() {
        let given = { (size: ThumborGeometry.Size) in size != .pixels(0) }
        guard given(requestWidth) || given(requestHeight) else {
            targetWidth = Double(width)
            targetHeight = Double(height)
            return
        }
        switch requestWidth {
        case .original: targetWidth = Double(width)
        case .pixels(let value) where value > 0: targetWidth = Double(value)
        case .pixels: targetWidth = Math.round(Double(side(requestHeight, orElse: height)) * Double(width) / Double(height))
        }
        switch requestHeight {
        case .original: targetHeight = Double(height)
        case .pixels(let value) where value > 0: targetHeight = Double(value)
        case .pixels: targetHeight = Math.round(Double(side(requestWidth, orElse: width)) * Double(height) / Double(width))
        }
    }

    /// A requested side in pixels, `orig` being `image`.
    func side(_ size: ThumborGeometry.Size, orElse image: Int) -> Int {
        if case .pixels(let value) = size { return value }
        return image
    }

    /// `adjust_focal_points` then `get_center_of_mass`: the focal regions inside the manual crop
    /// (moved into its coordinates), or the alignment point, weighted by area.
    func centerOfMass() -> (x: Double, y: Double) {
        var points: [(x: Double, y: Double, weight: Double)] = []
        for region in geometry.focalRegions {
            let regionWidth = region.right - region.left, regionHeight = region.bottom - region.top
            var x = region.left + Math.floorDivide(regionWidth, 2), y = region.top + Math.floorDivide(regionHeight, 2)
            if let crop = cropEdges {
                if x < crop.left || x > crop.right || y < crop.top || y > crop.bottom { continue }
                x -= crop.left
                y -= crop.top
            }
            points.append((Double(x), Double(y), Double(regionWidth) * Double(regionHeight)))
        }
        if points.isEmpty {
            let fractionX: Double = [.left: 0, .center: 0.5, .right: 1][geometry.horizontalAlignment] ?? 0.5
            let fractionY: Double = [.top: 0, .middle: 0.5, .bottom: 1][geometry.verticalAlignment] ?? 0.5
            points = [(Double(Math.int(Double(width) * fractionX)), Double(Math.int(Double(height) * fractionY)), 1)]
        }
        let weight = points.reduce(0) { $0 + $1.weight }
        let totalX = points.reduce(0) { $0 + $1.x * $1.weight }, totalY = points.reduce(0) { $0 + $1.y * $1.weight }
        return ((totalX / weight).rounded(.down), (totalY / weight).rounded(.down))
    }

    /// `auto_crop`: crop one axis to the target's aspect around the focal point, unless the aspects
    /// agree to two decimals.
    mutating func autoCrop() {
        let sourceWidth = Double(width), sourceHeight = Double(height)
        let safeWidth = targetWidth == 0 ? 1 : targetWidth, safeHeight = targetHeight == 0 ? 1 : targetHeight
        guard Math.hundredths(sourceWidth / sourceHeight) != Math.hundredths(safeWidth / safeHeight) else { return }
        let focus = centerOfMass()
        let cropWidth: Int, cropHeight: Int
        if targetWidth / sourceWidth > targetHeight / sourceHeight {
            cropWidth = width
            cropHeight = max(1, Math.int(Math.round(sourceWidth * targetHeight / safeWidth)))
        } else {
            cropWidth = max(1, Math.int(Math.round((targetWidth * sourceHeight / safeHeight).rounded(.up))))
            cropHeight = height
        }
        let left = max(0, Math.int(Math.round(min(max(focus.x - Double(cropWidth) / 2, 0), sourceWidth - Double(cropWidth)))))
        let top = max(0, Math.int(Math.round(min(max(focus.y - Double(cropHeight) / 2, 0), sourceHeight - Double(cropHeight)))))
        let right = min(left + cropWidth, width), bottom = min(top + cropHeight, height)
        guard right > left, bottom > top else { return }
        steps.append(.crop(x: left, y: top, width: right - left, height: bottom - top))
        width = right - left
        height = bottom - top
    }

    /// `fit_in_resize`: fit inside (or, `full`, cover) the box; plain fit-in never enlarges.
    mutating func fitInResize() {
        if geometry.adaptive,
           (width < height && targetWidth > targetHeight) || (width > height && targetWidth < targetHeight) {
            swap(&requestWidth, &requestHeight)
            swap(&targetWidth, &targetHeight)
        }
        if !geometry.full, targetWidth >= Double(width), targetHeight >= Double(height) { return }
        guard targetWidth > 0, targetHeight > 0 else { return }
        let sourceWidth = Double(width), sourceHeight = Double(height)
        let sign = geometry.full ? -1.0 : 1.0
        let resizeWidth: Double, resizeHeight: Double
        if sourceWidth / targetWidth * sign >= sourceHeight / targetHeight * sign {
            resizeHeight = Math.round(sourceHeight * targetWidth / sourceWidth + 1e-5)
            resizeWidth = targetWidth
        } else {
            resizeHeight = targetHeight
            resizeWidth = Math.round(sourceWidth * targetHeight / sourceHeight + 1e-5)
        }
        requestWidth = .pixels(Math.int(max(Double(side(requestWidth, orElse: width)), resizeWidth)))
        requestHeight = .pixels(Math.int(max(Double(side(requestHeight, orElse: height)), resizeHeight)))
        scale(to: Math.int(resizeWidth), Math.int(resizeHeight))
    }

    /// A resample to `newWidth`×`newHeight` (at least 1 px), skipped when the size does not change.
    mutating func scale(to newWidth: Int, _ newHeight: Int) {
        let newWidth = max(1, newWidth), newHeight = max(1, newHeight)
        guard newWidth != width || newHeight != height else { return }
        steps.append(.scale(width: newWidth, height: newHeight))
        width = newWidth
        height = newHeight
    }
}
