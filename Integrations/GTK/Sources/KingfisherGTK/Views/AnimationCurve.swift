import Foundation

/// Maps the linear progress of an animation (0...1) to the progress shown (0...1).
public struct AnimationCurve: Sendable {
    private let function: @Sendable (Double) -> Double

    /// A curve from a function of progress; the result is clamped to 0...1.
    public init(_ function: @escaping @Sendable (Double) -> Double) {
        self.function = function
    }

    /// The shown progress at linear progress `t`, with `t` clamped to 0...1.
    public func callAsFunction(_ t: Double) -> Double {
        let clamped = min(1, max(0, t.isFinite ? t : 1))
        let value = function(clamped)
        return value.isFinite ? min(1, max(0, value)) : clamped
    }

    /// Constant speed.
    public static let linear = AnimationCurve { $0 }
    /// Slow start and end: a smoothstep, `3t² − 2t³`.
    public static let easeInOut = AnimationCurve { t in t * t * (3 - 2 * t) }
    /// Slow start: `t²`.
    public static let easeIn = AnimationCurve { t in t * t }
    /// Slow end: `1 − (1 − t)²`.
    public static let easeOut = AnimationCurve { t in 1 - (1 - t) * (1 - t) }
}
