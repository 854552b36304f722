import Foundation

/// Draws a frame onto a canvas of one colour, as Kingfisher draws an image into a context it has
/// filled with a background colour (or left transparent).
enum CanvasCompositor {
    /// How each source pixel meets the canvas.
    enum Operation: Equatable {
        /// A blend mode, composited source-over.
        case blend(BlendMode)
        /// A Porter-Duff operator.
        case compositing(CompositingOperation)
    }

    /// `frame` drawn with `operation` at opacity `alpha` (0...1, multiplying the source) onto a
    /// canvas of the premultiplied colour `canvas`; the duration is kept.
    static func draw(_ frame: ImageFrame, operation: Operation, alpha: Float, canvas: RGBA8) -> ImageFrame {
        let destination = PremultipliedPixel(canvas)
        let combine: (PremultipliedPixel) -> PremultipliedPixel
        let separable: Bool
        switch operation {
        case .blend(let mode):
            combine = { BlendFormulas.composite(mode, source: $0, backdrop: destination) }
            separable = ![.hue, .saturation, .color, .luminosity].contains(mode)
        case .compositing(let op):
            combine = { PorterDuff.composite(op, source: $0, destination: destination) }
            separable = true
        }
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { input in
                if separable && input.count >= tableThreshold {
                    runWithTables(input, output, alpha: alpha, combine)
                } else {
                    run(input, output, alpha: alpha, combine)
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }

    /// Bytes of pixels from which tables pay for themselves.
    private static let tableThreshold = 16_384

    /// The source pixel of premultiplied bytes `value, value, value, alphaByte` at opacity `alpha`.
    @inline(__always)
    private static func source(_ value: UInt8, _ alphaByte: UInt8, scale: Float) -> PremultipliedPixel {
        let v = Float(value) * scale
        return PremultipliedPixel(r: v, g: v, b: v, a: Float(alphaByte) * scale)
    }

    /// For operations where each colour channel depends only on that channel and the alphas, with
    /// a canvas that is the same everywhere: a table of results per source alpha, built the first
    /// time that alpha appears, gives every pixel in four lookups. The tables hold exactly what
    /// `combine` gives, so the output matches ``run(_:_:alpha:_:)``.
    private static func runWithTables(_ input: UnsafeBufferPointer<UInt8>, _ output: UnsafeMutableBufferPointer<UInt8>,
                                      alpha: Float, _ combine: (PremultipliedPixel) -> PremultipliedPixel) {
        let scale = alpha / 255
        // Per source alpha: 256 entries of (r, g, b, alpha out) for each source colour value.
        let tables = UnsafeMutablePointer<UInt8>.allocate(capacity: 256 * 1024)
        var built = [Bool](repeating: false, count: 256)
        defer { tables.deallocate() }
        var offset = 0
        while offset < input.count {
            let alphaByte = input[offset &+ 3]
            let table = tables + Int(alphaByte) &* 1024
            if !built[Int(alphaByte)] {
                for value in 0..<256 {
                    let result = combine(source(UInt8(value), alphaByte, scale: scale)).rgba8
                    table[value &* 4] = result.r
                    table[value &* 4 &+ 1] = result.g
                    table[value &* 4 &+ 2] = result.b
                    table[value &* 4 &+ 3] = result.a
                }
                built[Int(alphaByte)] = true
            }
            output[offset] = table[Int(input[offset]) &* 4]
            output[offset &+ 1] = table[Int(input[offset &+ 1]) &* 4 &+ 1]
            output[offset &+ 2] = table[Int(input[offset &+ 2]) &* 4 &+ 2]
            output[offset &+ 3] = table[3]
            offset &+= 4
        }
    }

    /// Every pixel of `input`, scaled by `alpha`, through `combine` into `output`. Runs of equal
    /// source pixels (flat areas) reuse the previous result.
    private static func run(_ input: UnsafeBufferPointer<UInt8>, _ output: UnsafeMutableBufferPointer<UInt8>,
                            alpha: Float, _ combine: (PremultipliedPixel) -> PremultipliedPixel) {
        let scale = alpha / 255
        var previous: (UInt32, RGBA8)?
        input.withMemoryRebound(to: UInt32.self) { words in
            for index in 0..<words.count {
                let word = words[index]
                let result: RGBA8
                if let (key, value) = previous, key == word {
                    result = value
                } else {
                    let offset = index &* 4
                    let source = PremultipliedPixel(r: Float(input[offset]) * scale, g: Float(input[offset &+ 1]) * scale,
                                                    b: Float(input[offset &+ 2]) * scale, a: Float(input[offset &+ 3]) * scale)
                    result = combine(source).rgba8
                    previous = (word, result)
                }
                let offset = index &* 4
                output[offset] = result.r
                output[offset &+ 1] = result.g
                output[offset &+ 2] = result.b
                output[offset &+ 3] = result.a
            }
        }
    }
}
