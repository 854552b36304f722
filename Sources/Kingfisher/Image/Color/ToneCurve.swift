import Foundation

/// A tone curve of a matrix/TRC profile, from encoded (0...1) to linear light (0...1).
enum ToneCurve: Sendable, Hashable {
    /// `y = x^γ` (an ICC `curv` with one entry, or an empty one for γ = 1).
    case gamma(Double)
    /// A sampled curve (an ICC `curv` with two or more entries), interpolated linearly.
    case table([Double])
    /// An ICC `parametricCurveType` of function type 0...4 with its parameters (g, a, b, c, d, e, f).
    case parametric(function: Int, values: [Double])

    /// A parametric curve, or `nil` when its parameters are not finite.
    init?(parametric function: Int, _ values: [Double]) {
        guard values.allSatisfy(\.isFinite) else { return nil }
        self = .parametric(function: function, values: values)
    }

    /// The linear value of the encoded `x` (0...1), clamped to 0...1; a non-finite result gives 0.
    func evaluate(_ x: Double) -> Double {
        let y: Double
        switch self {
        case .gamma(let gamma):
            y = pow(x, gamma)
        case .table(let table):
            let position = x * Double(table.count - 1)
            let index = min(table.count - 2, Int(position))
            let fraction = position - Double(index)
            y = table[index] + (table[index + 1] - table[index]) * fraction
        case .parametric(let function, let v):
            y = Self.parametric(function, v, x)
        }
        return y.isFinite ? min(1, max(0, y)) : 0
    }

    /// ICC.1 table 68: the five parametric functions.
    private static func parametric(_ function: Int, _ v: [Double], _ x: Double) -> Double {
        let g = v[0]
        switch function {
        case 0:
            return pow(x, g)
        case 1, 2:
            let (a, b) = (v[1], v[2])
            let c = function == 2 ? v[3] : 0
            guard a != 0, x >= -b / a else { return c }
            return pow(max(0, a * x + b), g) + c
        case 3:
            let (a, b, c, d) = (v[1], v[2], v[3], v[4])
            return x >= d ? pow(max(0, a * x + b), g) : c * x
        default:
            let (a, b, c, d, e, f) = (v[1], v[2], v[3], v[4], v[5], v[6])
            return x >= d ? pow(max(0, a * x + b), g) + e : c * x + f
        }
    }
}

/// A matrix/TRC colour space: three colorants (D50-adapted XYZ of R, G and B) and a tone curve each.
struct MatrixShaperProfile: Sendable, Hashable {
    /// The XYZ columns of R, G and B.
    let colorants: [[Double]]
    /// The tone curves of R, G and B.
    let curves: [ToneCurve]
}
