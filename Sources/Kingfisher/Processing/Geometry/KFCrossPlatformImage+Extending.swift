import Foundation

extension KFCrossPlatformImage {
    /// A canvas of `width` × `height` pixels filled with `background`, with the image drawn on it
    /// (source-over) with its top-left corner at (`x`, `y`).
    ///
    /// `x` and `y` may be negative or reach past the canvas: what falls outside is clipped, and an
    /// image entirely outside leaves only the background. The background is premultiplied, so a
    /// semi-transparent colour gives valid premultiplied pixels, and transparent parts of the image
    /// show it through. Sides below 1 count as 1; the caller bounds the size (each frame of the result
    /// takes `width × height × 4` bytes). Every frame of an animation is drawn.
    public func extended(toPixelWidth width: Int, height: Int, x: Int, y: Int, background: KFCrossPlatformColor) -> KFCrossPlatformImage {
        let canvasWidth = max(1, width)
        let canvasHeight = max(1, height)
        // Positions further out than a full image or canvas width draw the same nothing.
        let left = min(max(x, -pixelWidth), canvasWidth)
        let top = min(max(y, -pixelHeight), canvasHeight)
        let color = background.premultiplied
        let placed = frames.map {
            $0.drawn(onCanvasWidth: canvasWidth, height: canvasHeight, x: left, y: top, background: color)
        }
        let opaque = color.a == 255 || placed.allSatisfy(\.allOpaque)
        return KFCrossPlatformImage(validated: placed, loopCount: loopCount, scale: scale, isOpaque: opaque)
    }

    /// The image with `top`, `right`, `bottom` and `left` pixels of `background` added around it.
    ///
    /// Negative amounts count as 0; ``extended(toPixelWidth:height:x:y:background:)`` does the work.
    public func padded(top: Int, right: Int, bottom: Int, left: Int, background: KFCrossPlatformColor) -> KFCrossPlatformImage {
        func amount(_ value: Int) -> Int { min(max(value, 0), Int(Int32.max)) }
        let (top, right, bottom, left) = (amount(top), amount(right), amount(bottom), amount(left))
        guard top | right | bottom | left != 0 else { return self }
        return extended(toPixelWidth: pixelWidth + left + right, height: pixelHeight + top + bottom,
                        x: left, y: top, background: background)
    }
}

extension ImageFrame {
    /// A `width` × `height` canvas of the premultiplied `background` with this frame drawn
    /// source-over at (`x`, `y`), clipped; the duration is kept. One pass writes every output pixel once.
    func drawn(onCanvasWidth width: Int, height: Int, x: Int, y: Int, background: RGBA8) -> ImageFrame {
        let fill = (UInt32(background.r) | UInt32(background.g) << 8 | UInt32(background.b) << 16
            | UInt32(background.a) << 24).littleEndian
        // The visible part of the frame: source columns and rows, and where they land.
        let sourceX = max(0, -x), targetX = max(0, x)
        let sourceY = max(0, -y), targetY = max(0, y)
        let visibleWidth = max(0, min(self.width - sourceX, width - targetX))
        let visibleHeight = max(0, min(self.height - sourceY, height - targetY))
        let copies = background.a == 0
        let sourceWidth = self.width
        let pixels = PixelMemory.bytes(count: width * height * 4) { output in
            output.withMemoryRebound(to: UInt32.self) { canvas in
                guard let target = canvas.baseAddress else { return }
                canvas.initialize(repeating: fill)
                guard visibleWidth > 0, visibleHeight > 0 else { return }
                self.pixels.withUnsafeBytes { raw in
                    let source = raw.bindMemory(to: UInt32.self)
                    guard let sourceBase = source.baseAddress else { return }
                    for row in 0..<visibleHeight {
                        let from = sourceBase + (sourceY + row) * sourceWidth + sourceX
                        let to = target + (targetY + row) * width + targetX
                        if copies {
                            to.update(from: from, count: visibleWidth)
                        } else {
                            Self.compositeRow(from, onto: to, count: visibleWidth)
                        }
                    }
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: duration)
    }

    /// `count` premultiplied pixels drawn source-over onto `target`, which holds the background.
    /// Opaque source pixels are copied whole.
    @inline(__always)
    private static func compositeRow(_ source: UnsafePointer<UInt32>, onto target: UnsafeMutablePointer<UInt32>, count: Int) {
        for index in 0..<count {
            let word = UInt32(littleEndian: source[index])
            let alpha = word >> 24
            if alpha == 255 {
                target[index] = source[index]
                continue
            }
            let under = 255 &- alpha
            let below = UInt32(littleEndian: target[index])
            var result: UInt32 = 0
            for shift in stride(from: 0 as UInt32, to: 32, by: 8) {
                let channel = (word >> shift) & 0xFF
                let covered = UInt32(PixelConversion.multiply(UInt8(truncatingIfNeeded: below >> shift), under))
                result |= ((channel &+ covered) & 0xFF) << shift
            }
            target[index] = result.littleEndian
        }
    }
}
