/// Python 3's number rules as thumbor's transformer and filters use them, on doubles.
enum PythonArithmetic {
    /// `round(x)` (and `round(x, 0)`): the nearest integer, ties to even.
    static func round(_ value: Double) -> Double {
        value.rounded(.toNearestOrEven)
    }

    /// `round(x, 2)` as a whole number of hundredths: the exact value of `x` rounded, ties to even.
    ///
    /// `x * 100` can itself round onto a tie; the product's rounding error (a fused multiply-add)
    /// tells which side of the tie the exact value lies.
    static func hundredths(_ value: Double) -> Double {
        let scaled = value * 100
        guard scaled.isFinite, abs(scaled) < 0x1p52 else { return scaled }
        if scaled - scaled.rounded(.down) == 0.5 {
            let residual = (-scaled).addingProduct(value, 100)
            if residual > 0 { return scaled.rounded(.up) }
            if residual < 0 { return scaled.rounded(.down) }
        }
        return scaled.rounded(.toNearestOrEven)
    }

    /// `int(x)`: truncation toward zero, saturated to ±2⁵⁰ (and 0 for NaN) so no input traps.
    static func int(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        return Int(min(max(value, -0x1p50), 0x1p50).rounded(.towardZero))
    }

    /// `a // b` on integers: the quotient rounded toward minus infinity.
    static func floorDivide(_ dividend: Int, _ divisor: Int) -> Int {
        let quotient = dividend / divisor
        return (dividend % divisor != 0 && (dividend < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
