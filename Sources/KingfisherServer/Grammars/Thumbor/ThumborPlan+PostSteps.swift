extension ThumborPlan {
    /// One geometric post-transform filter, as thumbor's filter of that name computes it.
    mutating func apply(_ step: ThumborGeometry.PostStep) {
        switch step {
        case .rotate(let degrees):
            rotate(counterClockwise: degrees)
        case .upscale:
            upscale()
        case .fill(let fill, let fillTransparent):
            self.fill(fill, fillTransparent: fillTransparent)
        case .proportion(let factor):
            guard factor > 0, factor <= 1 else { return }
            let newWidth = Double(width) * factor, newHeight = Double(height) * factor
            guard newWidth >= 1, newHeight >= 1 else { return }
            scale(to: Math.int(newWidth), Math.int(newHeight))
        }
    }

    /// `rotate(D)`: thumbor (Pillow's transpose) turns counter-clockwise; the model turns clockwise.
    mutating func rotate(counterClockwise degrees: Int) {
        guard degrees % 90 == 0 else { return }
        let quarterTurns = ((degrees / 90) % 4 + 4) % 4
        guard quarterTurns != 0 else { return }
        steps.append(.rotate(quarterTurns: 4 - quarterTurns))
        if quarterTurns % 2 == 1 { swap(&width, &height) }
    }

    /// `upscale()`: when the image is smaller than the requested box on both sides, enlarge it to
    /// fit the box (the new side truncated, as thumbor's `int()` does).
    mutating func upscale() {
        let boxWidth = side(requestWidth, orElse: width), boxHeight = side(requestHeight, orElse: height)
        guard width < boxWidth, height < boxHeight else { return }
        if Double(width) / Double(boxWidth) >= Double(height) / Double(boxHeight) {
            scale(to: boxWidth, Math.int(Double(height) * Double(boxWidth) / Double(width)))
        } else {
            scale(to: Math.int(Double(width) * Double(boxHeight) / Double(height)), boxHeight)
        }
    }

    /// `fill(C)`: the image centred (offsets rounded down) on a canvas of the requested size, or of
    /// the image's side where the request gave 0; parts outside the canvas are cut off first. The
    /// image is pasted over the canvas (its transparent pixels filled) only with `fillTransparent`.
    mutating func fill(_ fill: RenditionFill, fillTransparent: Bool) {
        let requestedWidth = side(requestWidth, orElse: width), requestedHeight = side(requestHeight, orElse: height)
        let canvasWidth = requestedWidth != 0 ? requestedWidth : width
        let canvasHeight = requestedHeight != 0 ? requestedHeight : height
        guard canvasWidth != width || canvasHeight != height || fillTransparent else { return }
        let x = Math.floorDivide(canvasWidth - width, 2), y = Math.floorDivide(canvasHeight - height, 2)
        if x < 0 || y < 0 {
            let keptWidth = min(width, canvasWidth), keptHeight = min(height, canvasHeight)
            steps.append(.crop(x: max(0, -x), y: max(0, -y), width: keptWidth, height: keptHeight))
            width = keptWidth
            height = keptHeight
        }
        steps.append(.fill(width: canvasWidth, height: canvasHeight, x: max(0, x), y: max(0, y), fill: fill,
                           blends: fillTransparent))
        width = canvasWidth
        height = canvasHeight
    }
}
