import Foundation

/// An affine map of straight RGB (`out = M·c + offset`, clamped to 0...1) applied to premultiplied
/// pixels without dividing: since the map is affine, `αp·out = M·p + offset·αp`, clamped to
/// 0...αp, where `p` is the premultiplied colour. Alpha is kept.
struct ColorMatrix: Equatable {
    /// Row-major 3×3 coefficients.
    var m: [Float]
    /// Added to each channel, in units of the straight 0...1 range.
    var offset: [Float]

    /// The map that changes nothing.
    static let identity = ColorMatrix(m: [1, 0, 0, 0, 1, 0, 0, 0, 1], offset: [0, 0, 0])

    /// Core Image's `CIColorControls` followed by `CIExposureAdjust`, as Kingfisher chains them:
    /// saturation mixes each colour with its Rec. 709 luma `0.2126·R + 0.7152·G + 0.0722·B`
    /// (`L + s·(c − L)`), brightness adds, contrast scales around 0.5 (`(c − 0.5)·k + 0.5`), and
    /// exposure multiplies by `2^EV`. Non-finite parameters count as neutral; finite ones are
    /// clamped to ±1,000 (±64 for EV), far beyond any visible effect, so the arithmetic stays finite.
    static func colorControls(brightness: Float, contrast: Float, saturation: Float, inputEV: Float) -> ColorMatrix {
        func sane(_ value: Float, neutral: Float, limit: Float) -> Float {
            value.isFinite ? min(max(value, -limit), limit) : neutral
        }
        let b = sane(brightness, neutral: 0, limit: 1000)
        let k = sane(contrast, neutral: 1, limit: 1000)
        let s = sane(saturation, neutral: 1, limit: 1000)
        let gain = Float(pow(2, Double(sane(inputEV, neutral: 0, limit: 64))))
        let luma: [Float] = [0.2126, 0.7152, 0.0722]
        var m = [Float](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                let mixed = (1 - s) * luma[column] + (row == column ? s : 0)
                m[row * 3 + column] = gain * k * mixed
            }
        }
        let shift = gain * (k * (b - 0.5) + 0.5)
        return ColorMatrix(m: m, offset: [shift, shift, shift])
    }

    /// `frame` with the map applied to every pixel; the duration is kept.
    func apply(to frame: ImageFrame) -> ImageFrame {
        let (m0, m1, m2, m3, m4, m5, m6, m7, m8) = (m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
        let (o0, o1, o2) = (offset[0] * 255, offset[1] * 255, offset[2] * 255)
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { input in
                var index = 0
                while index < input.count {
                    let r = Float(input[index])
                    let g = Float(input[index &+ 1])
                    let b = Float(input[index &+ 2])
                    let alphaByte = input[index &+ 3]
                    let a = Float(alphaByte) / 255
                    let top = Float(alphaByte) + 0.5
                    output[index] = UInt8(min(max(m0 * r + m1 * g + m2 * b + o0 * a + 0.5, 0), top))
                    output[index &+ 1] = UInt8(min(max(m3 * r + m4 * g + m5 * b + o1 * a + 0.5, 0), top))
                    output[index &+ 2] = UInt8(min(max(m6 * r + m7 * g + m8 * b + o2 * a + 0.5, 0), top))
                    output[index &+ 3] = alphaByte
                    index &+= 4
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }
}
