import Foundation

extension KFCrossPlatformImage {
    /// The image with each colour channel `c` (straight, 0...255) mapped to
    /// `contrast × (c − 128) + 128 + brightness`, rounded half away from zero and clamped to 0...255;
    /// alpha is kept.
    ///
    /// thumbor's `brightness(N)` is `contrast: 1, brightness: Float(255 * N / 100)` (integer
    /// division) and its `contrast(N)` is `contrast: (N + 100)² / 10000, brightness: 0`; see
    /// ``ColorLevelsImageProcessor/thumborBrightness(_:)`` and ``ColorLevelsImageProcessor/thumborContrast(_:)``.
    /// Opaque pixels go through a 256-entry table; partly transparent ones are mapped on their
    /// premultiplied values (the offset scaled by alpha), which is the same map without a division.
    /// NaN counts as neutral; values are bounded to ±10,000. Every frame is mapped.
    public func levelsAdjusted(contrast: Float, brightness: Float) -> KFCrossPlatformImage {
        let levels = ColorLevels(contrast: contrast, brightness: brightness)
        let mapped = frames.map { levels.apply(to: $0) }
        return KFCrossPlatformImage(validated: mapped, loopCount: loopCount, scale: scale, isOpaque: isOpaque)
    }

    /// The image in grey: each pixel's Rec. 601 luma `0.299 R + 0.587 G + 0.114 B`, rounded, in all
    /// three colour channels; alpha is kept. Every frame is mapped.
    public func grayscaled() -> KFCrossPlatformImage {
        let grey = frames.map { frame in
            let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
                frame.pixels.withUnsafeBufferPointer { input in
                    var offset = 0
                    while offset < input.count {
                        // Luma is linear, so on premultiplied colour it is the premultiplied luma.
                        let sum = 299 &* UInt32(input[offset]) &+ 587 &* UInt32(input[offset &+ 1])
                            &+ 114 &* UInt32(input[offset &+ 2]) &+ 500
                        let luma = UInt8(truncatingIfNeeded: sum / 1000)
                        output[offset] = luma
                        output[offset &+ 1] = luma
                        output[offset &+ 2] = luma
                        output[offset &+ 3] = input[offset &+ 3]
                        offset &+= 4
                    }
                }
            }
            return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
        }
        return KFCrossPlatformImage(validated: grey, loopCount: loopCount, scale: scale, isOpaque: isOpaque)
    }
}

/// The linear map `contrast × (c − 128) + 128 + brightness` of straight 8-bit colour, for premultiplied pixels.
struct ColorLevels {
    /// The slope.
    let contrast: Float
    /// The value added to 0 after the slope, `128 × (1 − contrast) + brightness`, in 0...255 units.
    let intercept: Float
    /// The map of every straight (equally, opaque premultiplied) byte.
    let table: [UInt8]

    /// The map for `contrast` and `brightness`; NaN is neutral, values are bounded to ±10,000.
    init(contrast: Float, brightness: Float) {
        let slope = contrast.isNaN ? 1 : min(max(contrast, -10_000), 10_000)
        let offset = brightness.isNaN ? 0 : min(max(brightness, -10_000), 10_000)
        self.contrast = slope
        self.intercept = 128 * (1 - slope) + offset
        let intercept = self.intercept
        table = (0..<256).map { value in
            let mapped = (slope * Float(value) + intercept).rounded()
            return UInt8(min(max(mapped, 0), 255))
        }
    }

    /// `frame` with every pixel mapped; the duration is kept.
    func apply(to frame: ImageFrame) -> ImageFrame {
        let slope = contrast
        let perAlpha = intercept / 255
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            table.withUnsafeBufferPointer { table in
                frame.pixels.withUnsafeBufferPointer { input in
                    var offset = 0
                    while offset < input.count {
                        let alpha = input[offset &+ 3]
                        if alpha == 255 {
                            output[offset] = table[Int(input[offset])]
                            output[offset &+ 1] = table[Int(input[offset &+ 1])]
                            output[offset &+ 2] = table[Int(input[offset &+ 2])]
                        } else {
                            // Premultiplied: a·f(c) = slope·p + intercept·a/255, clamped to 0...a.
                            let shift = perAlpha * Float(alpha)
                            let top = Float(alpha)
                            for channel in 0..<3 {
                                let mapped = (slope * Float(input[offset &+ channel]) + shift).rounded()
                                output[offset &+ channel] = UInt8(min(max(mapped, 0), top))
                            }
                        }
                        output[offset &+ 3] = alpha
                        offset &+= 4
                    }
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }
}
