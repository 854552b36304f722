import Foundation

/// The Porter-Duff operators (and Core Graphics' two additive ones) on premultiplied pixels.
enum PorterDuff {
    /// `source` put onto `destination` by `operation`; the formulas are listed on
    /// ``CompositingOperation``.
    @inline(__always)
    static func composite(_ operation: CompositingOperation, source s: PremultipliedPixel,
                          destination d: PremultipliedPixel) -> PremultipliedPixel {
        switch operation {
        case .clear: return PremultipliedPixel(r: 0, g: 0, b: 0, a: 0)
        case .copy: return s
        case .sourceOver: return weighted(s, 1, d, 1 - s.a)
        case .sourceIn: return weighted(s, d.a, d, 0)
        case .sourceOut: return weighted(s, 1 - d.a, d, 0)
        case .sourceAtop: return weighted(s, d.a, d, 1 - s.a)
        case .destinationOver: return weighted(s, 1 - d.a, d, 1)
        case .destinationIn: return weighted(s, 0, d, s.a)
        case .destinationOut: return weighted(s, 0, d, 1 - s.a)
        case .destinationAtop: return weighted(s, 1 - d.a, d, s.a)
        case .xor: return weighted(s, 1 - d.a, d, 1 - s.a)
        case .plusLighter:
            return PremultipliedPixel(r: min(1, s.r + d.r), g: min(1, s.g + d.g), b: min(1, s.b + d.b),
                                      a: min(1, s.a + d.a))
        case .plusDarker:
            let alpha = min(1, s.a + d.a)
            @inline(__always) func channel(_ sc: Float, _ dc: Float) -> Float {
                max(0, alpha - (s.a - sc) - (d.a - dc))
            }
            return PremultipliedPixel(r: channel(s.r, d.r), g: channel(s.g, d.g), b: channel(s.b, d.b), a: alpha)
        }
    }

    /// `s·fs + d·fd`, every component.
    @inline(__always)
    private static func weighted(_ s: PremultipliedPixel, _ fs: Float, _ d: PremultipliedPixel, _ fd: Float) -> PremultipliedPixel {
        PremultipliedPixel(r: s.r * fs + d.r * fd, g: s.g * fs + d.g * fd, b: s.b * fs + d.b * fd,
                           a: s.a * fs + d.a * fd)
    }
}
