import Foundation

extension KFCrossPlatformImage {
    /// The image with each colour channel `c` (straight, 0...255) mapped to
    /// `contrast × (c − 128) + 128 + brightness`, rounded half away from zero and clamped to 0...255;
    /// alpha is kept.
    ///
    /// thumbor's `brightness(N)` is `contrast: 1, brightness: Float(255 * N / 100)` (integer
    /// division) and its `contrast(N)` is `contrast: (N + 100)² / 10000, brightness: 0`; see
    /// ``ColorLevelsImageProcessor/thumborBrightness(_:)`` and ``ColorLevelsImageProcessor/thumborContrast(_:)``.
    /// Opaque pixels go through a 256-entry table; partly transparent ones through a table per alpha
    /// of the same map on premultiplied values (the offset scaled by alpha), with no division.
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
            let pixels = frame.pixels.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: UInt32.self) { input in
                    PixelMemory.bytes(count: frame.pixels.count) { output in
                        output.withMemoryRebound(to: UInt32.self) { output in
                            for index in 0..<input.count {
                                let word = UInt32(littleEndian: input[index])
                                // Luma is linear, so on premultiplied colour it is the premultiplied luma.
                                let sum = 299 &* (word & 0xFF) &+ 587 &* (word >> 8 & 0xFF) &+ 114 &* (word >> 16 & 0xFF) &+ 500
                                let luma = sum / 1000
                                output[index] = (luma | luma << 8 | luma << 16 | word & 0xFF00_0000).littleEndian
                            }
                        }
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
    ///
    /// Each alpha has its own table of the premultiplied map, `clamp(slope·p + intercept·α/255, 0, α)`,
    /// built the first time the alpha appears (opaque pixels use ``table``), so every pixel costs three
    /// lookups whatever its alpha.
    func apply(to frame: ImageFrame) -> ImageFrame {
        let slope = contrast
        let perAlpha = intercept / 255
        let tables = UnsafeMutablePointer<UInt8>.allocate(capacity: 256 * 256)
        defer { tables.deallocate() }
        var built = [Bool](repeating: false, count: 256)
        table.withUnsafeBufferPointer { opaque in
            guard let base = opaque.baseAddress else { return }
            (tables + 255 * 256).initialize(from: base, count: 256)
        }
        built[255] = true
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { input in
                var offset = 0
                while offset < input.count {
                    let alpha = Int(input[offset &+ 3])
                    let row = tables + alpha &* 256
                    if !built[alpha] {
                        let shift = perAlpha * Float(alpha)
                        let top = Float(alpha)
                        for value in 0..<256 {
                            row[value] = UInt8(min(max((slope * Float(value) + shift).rounded(), 0), top))
                        }
                        built[alpha] = true
                    }
                    output[offset] = row[Int(input[offset])]
                    output[offset &+ 1] = row[Int(input[offset &+ 1])]
                    output[offset &+ 2] = row[Int(input[offset &+ 2])]
                    output[offset &+ 3] = input[offset &+ 3]
                    offset &+= 4
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }
}
