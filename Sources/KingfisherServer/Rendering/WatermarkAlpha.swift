import Foundation
import Kingfisher

/// thumbor's way of making a watermark transparent: lowering every pixel's alpha by an amount.
enum WatermarkAlpha {
    /// The first frame of `image` with `amount` (0...255) subtracted from each pixel's alpha (never
    /// below 0), its premultiplied colour scaled to match.
    static func lowered(_ image: KFCrossPlatformImage, by amount: Int) -> KFCrossPlatformImage {
        let amount = min(max(amount, 0), 255)
        let frame = image.firstFrame
        guard amount > 0 else { return image.firstFrameOnly() }
        var pixels = frame.pixels
        pixels.withUnsafeMutableBufferPointer { bytes in
            var offset = 0
            while offset + 3 < bytes.count {
                let alpha = Int(bytes[offset + 3])
                let lowered = max(0, alpha - amount)
                if lowered == 0 {
                    for channel in 0..<4 { bytes[offset + channel] = 0 }
                } else {
                    for channel in 0..<3 {
                        bytes[offset + channel] = UInt8(min(255, (Int(bytes[offset + channel]) * lowered + alpha / 2) / alpha))
                    }
                    bytes[offset + 3] = UInt8(lowered)
                }
                offset += 4
            }
        }
        guard let lowered = ImageFrame(width: frame.width, height: frame.height, pixels: pixels) else { return image.firstFrameOnly() }
        return KFCrossPlatformImage(frame: lowered, scale: image.scale)
    }
}
