import Foundation

/// The filter taps of one direction of a resample: for every output pixel, the first input pixel it
/// reads, how many it reads, and their weights, which sum to 1.
///
/// Lanczos-3 windows. When shrinking, the kernel is stretched by the scale factor so that every input
/// pixel contributes (a proper low-pass filter rather than point sampling with a sharp kernel); when
/// enlarging it keeps its natural support of three pixels each side. Windows are clipped at the image
/// edges and renormalised there, so an edge pixel is never mixed with anything outside the image.
struct ResamplingWeights {
    /// First input index read by each output pixel.
    let starts: [Int]
    /// Number of input pixels read by each output pixel; at least 1.
    let counts: [Int]
    /// `stride` weights per output pixel (only the first `counts[i]` are used).
    let weights: [Float]
    /// Distance between the weights of consecutive output pixels.
    let stride: Int
    /// Output length.
    let outputCount: Int

    /// Lanczos reaches out this many (input pixels × scale factor) each side.
    static let lanczosSupport = 3.0

    /// Taps for resampling `inputCount` pixels to `outputCount`; both must be positive.
    init(inputCount: Int, outputCount: Int) {
        precondition(inputCount > 0 && outputCount > 0)
        let scale = Double(inputCount) / Double(outputCount)
        let filterScale = max(scale, 1)
        let support = Self.lanczosSupport * filterScale
        let stride = Int(support.rounded(.up)) * 2 + 1
        var starts = [Int](repeating: 0, count: outputCount)
        var counts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * stride)
        var window = [Double](repeating: 0, count: stride)
        let inverseFilterScale = 1 / filterScale

        for output in 0..<outputCount {
            let center = (Double(output) + 0.5) * scale
            let first = max(Int((center - support).rounded(.down)), 0)
            let end = min(Int((center + support).rounded(.up)), inputCount)
            var count = 0
            var sum = 0.0
            for input in first..<max(first, end) where count < stride {
                let weight = Self.lanczos3((Double(input) + 0.5 - center) * inverseFilterScale)
                window[count] = weight
                sum += weight
                count += 1
            }
            // A window can only sum to ~0 if it is degenerate; fall back to the nearest pixel.
            if count == 0 || abs(sum) < 1e-9 {
                starts[output] = min(max(Int(center), 0), inputCount - 1)
                counts[output] = 1
                weights[output * stride] = 1
                continue
            }
            // Trim (near-)zero taps at both ends so the inner loops do no useless work.
            var low = 0
            var high = count
            while high - low > 1 && abs(window[low]) < 1e-9 { low += 1 }
            while high - low > 1 && abs(window[high - 1]) < 1e-9 { high -= 1 }
            starts[output] = first + low
            counts[output] = high - low
            for tap in low..<high {
                weights[output * stride + tap - low] = Float(window[tap] / sum)
            }
        }
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.stride = stride
        self.outputCount = outputCount
    }

    /// Calls `body` with base pointers of `starts`, `counts` and `weights`, valid only during the call.
    func withPointers(_ body: (UnsafePointer<Int>, UnsafePointer<Int>, UnsafePointer<Float>) -> Void) {
        starts.withUnsafeBufferPointer { starts in
            counts.withUnsafeBufferPointer { counts in
                weights.withUnsafeBufferPointer { weights in
                    // Never empty (outputCount > 0), so the base addresses exist.
                    guard let starts = starts.baseAddress, let counts = counts.baseAddress,
                          let weights = weights.baseAddress
                    else { return }
                    body(starts, counts, weights)
                }
            }
        }
    }

    /// The Lanczos kernel with three lobes: sinc(x)·sinc(x/3) inside |x| < 3, 0 outside.
    static func lanczos3(_ x: Double) -> Double {
        let distance = abs(x)
        guard distance < lanczosSupport else { return 0 }
        guard distance > 1e-12 else { return 1 }
        let piX = Double.pi * distance
        return lanczosSupport * sin(piX) * sin(piX / lanczosSupport) / (piX * piX)
    }
}
