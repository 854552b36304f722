import Foundation

/// The few colorimetric constants and 3×3 operations colour management needs, in the conventions
/// lcms2 uses, so that the Swift conversion and lcms2's agree.
enum ColorMath {
    /// The ICC connection space's white, D50, as lcms2 has it (`cmsD50_XYZ`).
    static let d50: [Double] = [0.9642, 1.0, 0.8249]
    /// The D65 white of sRGB, Display P3 and BT.2020, as CIE xy.
    static let d65: (x: Double, y: Double) = (0.3127, 0.3290)

    /// sRGB's colorants (columns R, G, B) adapted to D50, as `cmsCreate_sRGBProfile` computes them.
    static let sRGBColorants: [[Double]] = colorants(
        red: (0.64, 0.33), green: (0.30, 0.60), blue: (0.15, 0.06), white: d65) ?? []

    /// The D50-adapted XYZ of each primary (three columns, each `[X, Y, Z]`) of an RGB space given by
    /// its primaries' and white's xy; `nil` for a degenerate set (a zero y, collinear primaries).
    static func colorants(red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                          white: (x: Double, y: Double)) -> [[Double]]? {
        guard red.1 > 0, green.1 > 0, blue.1 > 0, white.y > 0 else { return nil }
        let primaries: [[Double]] = [red, green, blue].map { [$0.0 / $0.1, 1, (1 - $0.0 - $0.1) / $0.1] }
        let whiteXYZ = [white.x / white.y, 1, (1 - white.x - white.y) / white.y]
        // Columns are the primaries at Y = 1; scale them so that R + G + B = white.
        let matrix = (0..<3).map { row in (0..<3).map { column in primaries[column][row] } }
        guard let inverse = invert(matrix) else { return nil }
        let scale = multiply(inverse, whiteXYZ)
        let adapt = bradford(from: whiteXYZ, to: d50)
        return (0..<3).map { column in multiply(adapt, primaries[column].map { $0 * scale[column] }) }
    }

    /// The Bradford chromatic adaptation from the white `source` to the white `target` (both XYZ).
    static func bradford(from source: [Double], to target: [Double]) -> [[Double]] {
        let cone: [[Double]] = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        guard let coneInverse = invert(cone) else { return identity }
        let from = multiply(cone, source)
        let to = multiply(cone, target)
        let gain = (0..<3).map { row in (0..<3).map { column in row == column ? to[row] / from[row] : 0 } }
        return multiply(coneInverse, multiply(gain, cone))
    }

    /// The 3×3 identity.
    static let identity: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]

    /// `a × b` for 3×3 matrices (rows of columns).
    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        (0..<3).map { row in (0..<3).map { column in (0..<3).reduce(0) { $0 + a[row][$1] * b[$1][column] } } }
    }

    /// `m × v` for a 3×3 matrix and a 3-vector.
    static func multiply(_ m: [[Double]], _ v: [Double]) -> [Double] {
        (0..<3).map { row in (0..<3).reduce(0) { $0 + m[row][$1] * v[$1] } }
    }

    /// The inverse of a 3×3 matrix, or `nil` when it is (nearly) singular.
    static func invert(_ m: [[Double]]) -> [[Double]]? {
        let cofactor: (Int, Int) -> Double = { row, column in
            let r = [(row + 1) % 3, (row + 2) % 3], c = [(column + 1) % 3, (column + 2) % 3]
            return m[r[0]][c[0]] * m[r[1]][c[1]] - m[r[0]][c[1]] * m[r[1]][c[0]]
        }
        let determinant = (0..<3).reduce(0) { $0 + m[0][$1] * cofactor(0, $1) }
        guard determinant.isFinite, abs(determinant) > 1e-9 else { return nil }
        return (0..<3).map { row in (0..<3).map { column in cofactor(column, row) / determinant } }
    }

    /// sRGB's encoding of a linear value in 0...1 (IEC 61966-2-1), unclamped inside that range.
    static func encodeSRGB(_ linear: Double) -> Double {
        linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }
}
