import Foundation
@testable import Kingfisher

/// How far two frames of the same size are apart, over every byte of their premultiplied RGBA.
struct PixelComparison {
    /// The largest difference of any byte.
    let maxError: Int
    /// Peak signal-to-noise ratio in dB over all bytes (infinity when identical).
    let psnr: Double
    /// Bytes that differ by more than 3.
    let overThree: Int

    /// `nil` when the sizes differ.
    init?(_ a: ImageFrame, _ b: ImageFrame) {
        guard a.width == b.width, a.height == b.height, a.pixels.count == b.pixels.count, !a.pixels.isEmpty else {
            return nil
        }
        var largest = 0
        var squares = 0.0
        var over = 0
        for (x, y) in zip(a.pixels, b.pixels) {
            let difference = abs(Int(x) - Int(y))
            largest = max(largest, difference)
            squares += Double(difference * difference)
            if difference > 3 { over += 1 }
        }
        maxError = largest
        overThree = over
        let mean = squares / Double(a.pixels.count)
        psnr = mean == 0 ? .infinity : 10 * log10(255 * 255 / mean)
    }
}
