import Foundation
import Kingfisher

/// Finds the rectangle ``RenditionFilter/trim(corner:tolerance:)`` keeps, as thumbor's bounding
/// box does.
enum TrimExecutor {
    /// The part of `image` (its first frame) that is not border, as `(x, y, width, height)`, or
    /// `nil` when nothing would be left (thumbor then serves the image untrimmed).
    ///
    /// The reference is the corner pixel; a pixel differs when the Euclidean distance of its
    /// straight channels (red, green, blue, and alpha for an image with transparency) from it is
    /// above `tolerance`. Each row is scanned from the left to its first differing pixel and from
    /// the right down to the rightmost column found so far, thumbor's scan, whose box this is.
    static func box(of image: KFCrossPlatformImage, corner: TrimCorner, tolerance: Int) -> (x: Int, y: Int, width: Int, height: Int)? {
        let frame = image.firstFrame
        let width = frame.width, height = frame.height
        let channels = image.isOpaque ? 3 : 4
        var left = width, top = height, right = 0, bottom = 0
        frame.pixels.withUnsafeBufferPointer { pixels in
            func straight(_ index: Int) -> (Int, Int, Int, Int) {
                let offset = index * 4
                let alpha = Int(pixels[offset + 3])
                func channel(_ value: UInt8) -> Int {
                    alpha == 255 ? Int(value) : alpha == 0 ? 0 : min(255, (Int(value) * 255 + alpha / 2) / alpha)
                }
                return (channel(pixels[offset]), channel(pixels[offset + 1]), channel(pixels[offset + 2]), alpha)
            }
            let reference = straight(corner == .topLeft ? 0 : width * height - 1)
            let limit = Double(tolerance)
            func differs(_ index: Int) -> Bool {
                let pixel = straight(index)
                var sum = (pixel.0 - reference.0) * (pixel.0 - reference.0) + (pixel.1 - reference.1) * (pixel.1 - reference.1)
                    + (pixel.2 - reference.2) * (pixel.2 - reference.2)
                if channels == 4 { sum += (pixel.3 - reference.3) * (pixel.3 - reference.3) }
                return Double(sum).squareRoot() > limit
            }
            for y in 0..<height {
                var x = 0
                while x < width {
                    if differs(y * width + x) {
                        left = min(left, x)
                        top = min(top, y)
                        bottom = y
                        break
                    }
                    x += 1
                }
                var column = width - 1
                let stop = max(x, right)
                while column > stop {
                    if differs(y * width + column) {
                        right = max(right, column)
                        break
                    }
                    column -= 1
                }
            }
        }
        guard right >= left, bottom >= top else { return nil }
        return (left, top, right - left + 1, bottom - top + 1)
    }
}
