import Foundation

/// One premultiplied pixel in floating point, every component from 0 to 1.
struct PremultipliedPixel: Equatable {
    var r: Float
    var g: Float
    var b: Float
    var a: Float

    /// The pixel of four premultiplied bytes.
    init(_ pixel: RGBA8) {
        r = Float(pixel.r) / 255
        g = Float(pixel.g) / 255
        b = Float(pixel.b) / 255
        a = Float(pixel.a) / 255
    }

    init(r: Float, g: Float, b: Float, a: Float) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Rounded to bytes, clamped so colour never exceeds alpha.
    var rgba8: RGBA8 {
        @inline(__always) func byte(_ value: Float, limit: Float) -> UInt8 {
            UInt8(min(max(value * 255 + 0.5, 0), limit))
        }
        let alpha = byte(a, limit: 255)
        let limit = Float(alpha) + 0.5
        return RGBA8(r: byte(r, limit: limit), g: byte(g, limit: limit), b: byte(b, limit: limit), a: alpha)
    }
}

/// A straight (not premultiplied) colour, components nominally 0...1.
struct StraightColor {
    var r: Float
    var g: Float
    var b: Float
}

/// The blend modes of the W3C Compositing and Blending spec, on floating-point pixels.
enum BlendFormulas {
    /// `source` blended into `backdrop` by `mode`, both premultiplied: the spec's
    /// `co = cs·(1 − αb) + cb·(1 − αs) + αs·αb·B(Cb, Cs)`, `αo = αs + αb − αs·αb`.
    @inline(__always)
    static func composite(_ mode: BlendMode, source s: PremultipliedPixel, backdrop d: PremultipliedPixel) -> PremultipliedPixel {
        guard s.a > 0 else { return d }
        guard d.a > 0 else { return s }
        let source = StraightColor(r: s.r / s.a, g: s.g / s.a, b: s.b / s.a)
        let backdrop = StraightColor(r: d.r / d.a, g: d.g / d.a, b: d.b / d.a)
        let mixed = mix(mode, backdrop: backdrop, source: source)
        let both = s.a * d.a
        return PremultipliedPixel(r: s.r * (1 - d.a) + d.r * (1 - s.a) + both * mixed.r,
                                  g: s.g * (1 - d.a) + d.g * (1 - s.a) + both * mixed.g,
                                  b: s.b * (1 - d.a) + d.b * (1 - s.a) + both * mixed.b,
                                  a: s.a + d.a - both)
    }

    /// The spec's `B(Cb, Cs)` for `mode`.
    static func mix(_ mode: BlendMode, backdrop cb: StraightColor, source cs: StraightColor) -> StraightColor {
        switch mode {
        case .hue: return setLum(setSat(cs, sat(cb)), lum(cb))
        case .saturation: return setLum(setSat(cb, sat(cs)), lum(cb))
        case .color: return setLum(cs, lum(cb))
        case .luminosity: return setLum(cb, lum(cs))
        default:
            return StraightColor(r: separable(mode, cb.r, cs.r), g: separable(mode, cb.g, cs.g),
                                 b: separable(mode, cb.b, cs.b))
        }
    }

    /// One channel of a separable mode; `b` the backdrop, `s` the source.
    static func separable(_ mode: BlendMode, _ b: Float, _ s: Float) -> Float {
        switch mode {
        case .normal: return s
        case .multiply: return b * s
        case .screen: return b + s - b * s
        case .overlay: return hardLight(backdrop: s, source: b)
        case .darken: return min(b, s)
        case .lighten: return max(b, s)
        case .colorDodge:
            if b <= 0 { return 0 }
            if s >= 1 { return 1 }
            return min(1, b / (1 - s))
        case .colorBurn:
            if b >= 1 { return 1 }
            if s <= 0 { return 0 }
            return 1 - min(1, (1 - b) / s)
        case .hardLight: return hardLight(backdrop: b, source: s)
        case .softLight:
            if s <= 0.5 { return b - (1 - 2 * s) * b * (1 - b) }
            let curve = b <= 0.25 ? ((16 * b - 12) * b + 4) * b : b.squareRoot()
            return b + (2 * s - 1) * (curve - b)
        case .difference: return abs(b - s)
        case .exclusion: return b + s - 2 * b * s
        case .hue, .saturation, .color, .luminosity: return s
        }
    }

    private static func hardLight(backdrop b: Float, source s: Float) -> Float {
        if s <= 0.5 { return b * 2 * s }
        let doubled = 2 * s - 1
        return b + doubled - b * doubled
    }

    /// The spec's luminosity: `0.3·R + 0.59·G + 0.11·B`.
    static func lum(_ c: StraightColor) -> Float {
        0.3 * c.r + 0.59 * c.g + 0.11 * c.b
    }

    /// `c` moved to luminosity `l`, pulled back into 0...1 towards its own luminosity.
    static func setLum(_ c: StraightColor, _ l: Float) -> StraightColor {
        let delta = l - lum(c)
        return clipColor(StraightColor(r: c.r + delta, g: c.g + delta, b: c.b + delta))
    }

    private static func clipColor(_ c: StraightColor) -> StraightColor {
        let l = lum(c)
        let low = min(c.r, c.g, c.b)
        let high = max(c.r, c.g, c.b)
        var result = c
        if low < 0, l - low > 0 {
            let scale = l / (l - low)
            result = StraightColor(r: l + (result.r - l) * scale, g: l + (result.g - l) * scale,
                                   b: l + (result.b - l) * scale)
        }
        if high > 1, high - l > 0 {
            let scale = (1 - l) / (high - l)
            result = StraightColor(r: l + (result.r - l) * scale, g: l + (result.g - l) * scale,
                                   b: l + (result.b - l) * scale)
        }
        return result
    }

    /// The spec's saturation: the largest component minus the smallest.
    static func sat(_ c: StraightColor) -> Float {
        max(c.r, c.g, c.b) - min(c.r, c.g, c.b)
    }

    /// `c` with saturation `s` and the same hue: the smallest component becomes 0, the largest
    /// `s`, the middle one in proportion; a grey becomes black.
    static func setSat(_ c: StraightColor, _ s: Float) -> StraightColor {
        let low = min(c.r, c.g, c.b)
        let range = max(c.r, c.g, c.b) - low
        guard range > 0 else { return StraightColor(r: 0, g: 0, b: 0) }
        let scale = s / range
        return StraightColor(r: (c.r - low) * scale, g: (c.g - low) * scale, b: (c.b - low) * scale)
    }
}
