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
        let pixels = PixelMemory.bytes(count: frame.pixels.count) { output in
            frame.pixels.withUnsafeBufferPointer { input in
                switch operation {
                case .blend(let mode):
                    run(input, output, alpha: alpha) { BlendFormulas.composite(mode, source: $0, backdrop: destination) }
                case .compositing(let op):
                    run(input, output, alpha: alpha) { PorterDuff.composite(op, source: $0, destination: destination) }
                }
            }
        }
        return ImageFrame(unchecked: frame.width, height: frame.height, pixels: pixels, duration: frame.duration)
    }

    /// Every pixel of `input`, scaled by `alpha`, through `combine` into `output`. Runs of equal
    /// source pixels (flat areas) reuse the previous result.
    @inline(__always)
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
