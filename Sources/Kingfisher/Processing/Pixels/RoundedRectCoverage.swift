import Foundation

/// The exact fraction of each pixel covered by an axis-aligned rectangle whose corners may be cut
/// by quarter circles, for anti-aliased corner clipping and borders.
///
/// Coordinates are in pixels with the origin at the top left; pixel (x, y) is the unit square
/// [x, x+1] × [y, y+1]. Coverage is an area, computed in closed form (the integral of a circle
/// arc), not sampled. ``row(_:width:)`` splits a row into runs that are empty, fully covered or
/// partly covered, so callers do per-pixel work only where the edge passes: O(radius + height)
/// exact evaluations for a whole image.
struct RoundedRectCoverage {
    let left: Double
    let top: Double
    let right: Double
    let bottom: Double
    let topLeftRadius: Double
    let topRightRadius: Double
    let bottomLeftRadius: Double
    let bottomRightRadius: Double

    /// A shape from its edges and one radius for the `corners` selected (the others stay square).
    ///
    /// The radius is clamped to 0...half the shorter side; a NaN radius counts as 0. A rectangle with
    /// no area covers nothing.
    init(left: Double, top: Double, right: Double, bottom: Double, radius: Double, corners: RectCorner) {
        self.left = left
        self.top = top
        self.right = max(left, right)
        self.bottom = max(top, bottom)
        let limit = min(self.right - left, self.bottom - top) / 2
        let clamped = radius.isNaN ? 0 : min(max(radius, 0), limit)
        topLeftRadius = corners.contains(.topLeft) ? clamped : 0
        topRightRadius = corners.contains(.topRight) ? clamped : 0
        bottomLeftRadius = corners.contains(.bottomLeft) ? clamped : 0
        bottomRightRadius = corners.contains(.bottomRight) ? clamped : 0
    }

    /// How one row of pixels is covered, as runs along x.
    ///
    /// `[0, zeroEnd)` is uncovered, `[zeroEnd, fullStart)` partly covered (ask ``coverage(x:y:)``),
    /// `[fullStart, fullEnd)` covered by exactly `fullValue` (1 unless the row straddles the top or
    /// bottom edge), `[fullEnd, zeroStart)` partly covered, and `[zeroStart, width)` uncovered.
    struct Row {
        let zeroEnd: Int
        let fullStart: Int
        let fullEnd: Int
        let zeroStart: Int
        let fullValue: Double

        static let empty = Row(zeroEnd: 0, fullStart: 0, fullEnd: 0, zeroStart: 0, fullValue: 0)
    }

    /// The runs of row `y` for an image `width` pixels wide.
    func row(_ y: Int, width: Int) -> Row {
        let y0 = max(Double(y), top)
        let y1 = min(Double(y) + 1, bottom)
        guard y1 > y0, right > left else { return .empty }

        // The left edge moves right inside the top and bottom corner bands and is `left` between
        // them: on [y0, y1] its largest value is at an end, its smallest at the point nearest the
        // straight part. The right edge mirrors this.
        let leftMost = leftEdge(at: nearestStraight(y0, y1, top + topLeftRadius, bottom - bottomLeftRadius))
        let leftLeast = max(leftEdge(at: y0), leftEdge(at: y1))
        let rightMost = rightEdge(at: nearestStraight(y0, y1, top + topRightRadius, bottom - bottomRightRadius))
        let rightLeast = min(rightEdge(at: y0), rightEdge(at: y1))

        func clampedIndex(_ value: Double) -> Int {
            Int(min(max(value, 0), Double(width)))
        }
        let zeroEnd = clampedIndex(leftMost.rounded(.down))
        let zeroStart = max(zeroEnd, clampedIndex(rightMost.rounded(.up)))
        var fullStart = min(max(zeroEnd, clampedIndex(leftLeast.rounded(.up))), zeroStart)
        var fullEnd = min(max(fullStart, clampedIndex(rightLeast.rounded(.down))), zeroStart)
        if fullEnd <= fullStart {
            // The two edges share pixels: treat the whole covered span as partial.
            fullStart = zeroStart
            fullEnd = zeroStart
        }
        return Row(zeroEnd: zeroEnd, fullStart: fullStart, fullEnd: fullEnd, zeroStart: zeroStart, fullValue: y1 - y0)
    }

    /// The fraction of pixel (x, y) inside the shape, from 0 to 1.
    func coverage(x: Int, y: Int) -> Double {
        let x0 = max(Double(x), left), x1 = min(Double(x) + 1, right)
        let y0 = max(Double(y), top), y1 = min(Double(y) + 1, bottom)
        guard x1 > x0, y1 > y0 else { return 0 }
        var area = (x1 - x0) * (y1 - y0)
        // Subtract, for each rounded corner, the part of its corner square outside the circle.
        if topLeftRadius > 0 {
            let r = topLeftRadius, cx = left + r, cy = top + r
            area -= Self.cutOff(u0: cx - min(x1, cx), u1: cx - x0, v0: cy - min(y1, cy), v1: cy - y0, radius: r)
        }
        if topRightRadius > 0 {
            let r = topRightRadius, cx = right - r, cy = top + r
            area -= Self.cutOff(u0: max(x0, cx) - cx, u1: x1 - cx, v0: cy - min(y1, cy), v1: cy - y0, radius: r)
        }
        if bottomLeftRadius > 0 {
            let r = bottomLeftRadius, cx = left + r, cy = bottom - r
            area -= Self.cutOff(u0: cx - min(x1, cx), u1: cx - x0, v0: max(y0, cy) - cy, v1: y1 - cy, radius: r)
        }
        if bottomRightRadius > 0 {
            let r = bottomRightRadius, cx = right - r, cy = bottom - r
            area -= Self.cutOff(u0: max(x0, cx) - cx, u1: x1 - cx, v0: max(y0, cy) - cy, v1: y1 - cy, radius: r)
        }
        return min(max(area, 0), 1)
    }

    // MARK: - Edges

    private func nearestStraight(_ y0: Double, _ y1: Double, _ straightTop: Double, _ straightBottom: Double) -> Double {
        if y1 < straightTop { return y1 }
        if y0 > straightBottom { return y0 }
        return max(y0, min(y1, straightTop))
    }

    private func leftEdge(at y: Double) -> Double {
        left + Self.inset(y - top, topLeftRadius, bottom - y, bottomLeftRadius)
    }

    private func rightEdge(at y: Double) -> Double {
        right - Self.inset(y - top, topRightRadius, bottom - y, bottomRightRadius)
    }

    /// How far a rounded corner pushes the side inwards at a height `fromTop` below the top edge
    /// (and `fromBottom` above the bottom edge).
    private static func inset(_ fromTop: Double, _ topRadius: Double, _ fromBottom: Double, _ bottomRadius: Double) -> Double {
        if fromTop < topRadius {
            let d = topRadius - fromTop
            return topRadius - (max(topRadius * topRadius - d * d, 0)).squareRoot()
        }
        if fromBottom < bottomRadius {
            let d = bottomRadius - fromBottom
            return bottomRadius - (max(bottomRadius * bottomRadius - d * d, 0)).squareRoot()
        }
        return 0
    }

    // MARK: - Areas

    /// The area of [u0, u1] × [v0, v1] ∩ [0, r]² that lies outside the circle of radius r about the
    /// origin. Coordinates are distances from the circle's centre towards the corner, so the
    /// rectangle is where one pixel meets one corner square; an empty rectangle gives 0.
    private static func cutOff(u0: Double, u1: Double, v0: Double, v1: Double, radius r: Double) -> Double {
        let ua = max(u0, 0), ub = min(u1, r)
        let va = max(v0, 0), vb = min(v1, r)
        guard ub > ua, vb > va else { return 0 }
        return (ub - ua) * (vb - va) - insideArea(u0: ua, u1: ub, v0: va, v1: vb, radius: r)
    }

    /// The area of [u0, u1] × [v0, v1] (inside [0, r]²) within the circle of radius r: the integral
    /// over u of the circle's height above v0, capped at v1 - v0.
    private static func insideArea(u0: Double, u1: Double, v0: Double, v1: Double, radius r: Double) -> Double {
        let rr = r * r
        // Up to uFull the circle is above v1 (full height); beyond uNone it is below v0.
        let uFull = min(max((max(rr - v1 * v1, 0)).squareRoot(), u0), u1)
        let uNone = min(max((max(rr - v0 * v0, 0)).squareRoot(), u0), u1)
        let full = (uFull - u0) * (v1 - v0)
        let arc = antiderivative(uNone, rr, r) - antiderivative(uFull, rr, r) - v0 * (uNone - uFull)
        return full + max(arc, 0)
    }

    /// ∫₀ᵘ √(r² − t²) dt.
    private static func antiderivative(_ u: Double, _ rr: Double, _ r: Double) -> Double {
        0.5 * (u * (max(rr - u * u, 0)).squareRoot() + rr * asin(min(u / r, 1)))
    }
}
