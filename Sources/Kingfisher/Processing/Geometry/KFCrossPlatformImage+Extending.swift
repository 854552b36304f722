import Foundation

extension KFCrossPlatformImage {
    /// A canvas of `width` × `height` pixels filled with `background`, with the image drawn on it
    /// (source-over) with its top-left corner at (`x`, `y`).
    ///
    /// `x` and `y` may be negative or reach past the canvas: what falls outside is clipped, and an
    /// image entirely outside leaves only the background. The background is premultiplied, so a
    /// semi-transparent colour gives valid premultiplied pixels, and transparent parts of the image
    /// show it through (unless `blendsOntoBackground` is false: then the image's pixels, transparent
    /// ones too, replace the background's). Sides below 1 count as 1; the caller bounds the size (each
    /// frame of the result takes `width × height × 4` bytes). Every frame of an animation is drawn.
    public func extended(toPixelWidth width: Int, height: Int, x: Int, y: Int, background: KFCrossPlatformColor,
                         blendsOntoBackground: Bool = true) -> KFCrossPlatformImage {
        let canvasWidth = max(1, width)
        let canvasHeight = max(1, height)
        // Positions further out than a full image or canvas width draw the same nothing.
        let left = min(max(x, -pixelWidth), canvasWidth)
        let top = min(max(y, -pixelHeight), canvasHeight)
        let color = background.premultiplied
        let placed = frames.map {
            $0.drawn(onCanvasWidth: canvasWidth, height: canvasHeight, x: left, y: top, background: color,
                     copies: !blendsOntoBackground)
        }
        let opaque = (color.a == 255 && (blendsOntoBackground || isOpaque)) || placed.allSatisfy(\.allOpaque)
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

extension KFCrossPlatformImage {
    /// `canvas` (its first frame) with this image drawn on it, its top-left corner at (`x`, `y`),
    /// source-over when `blends`, else with the image's pixels (transparent ones too) replacing the
    /// canvas's; what falls outside the canvas is clipped. Every frame of an animation is drawn on
    /// its own copy of the canvas; the result has the canvas's size and this image's scale.
    public func placed(on canvas: KFCrossPlatformImage, x: Int, y: Int, blends: Bool = true) -> KFCrossPlatformImage {
        let background = canvas.firstFrame
        let placed = frames.map { frame in
            FrameOverlay.draw(frame, over: background.withDuration(frame.duration), at: [(x: x, y: y)], opacity: 1,
                              replaces: !blends)
        }
        return KFCrossPlatformImage(validated: placed, loopCount: loopCount, scale: scale,
                                    isOpaque: placed.allSatisfy(\.allOpaque))
    }
}

extension ImageFrame {
    /// A `width` × `height` canvas of the premultiplied `background` with this frame drawn
    /// source-over at (`x`, `y`), clipped; the duration is kept. One pass writes every output pixel once.
    func drawn(onCanvasWidth width: Int, height: Int, x: Int, y: Int, background: RGBA8, copies: Bool = false) -> ImageFrame {
        let fill = (UInt32(background.r) | UInt32(background.g) << 8 | UInt32(background.b) << 16
            | UInt32(background.a) << 24).littleEndian
        // The visible part of the frame: source columns and rows, and where they land.
        let sourceX = max(0, -x), targetX = max(0, x)
        let sourceY = max(0, -y), targetY = max(0, y)
        let visibleWidth = max(0, min(self.width - sourceX, width - targetX))
        let visibleHeight = max(0, min(self.height - sourceY, height - targetY))
        // Source-over on a background of one colour: each premultiplied channel is `s + b·(255 − αs)/255`,
        // which never carries into the next byte, so one word addition per pixel does it, with the
        // background's share for every source alpha from a table.
        let copies = copies || background.a == 0
        let covered: [UInt32] = copies ? [] : (0..<256).map { alpha in
            let under = 255 - UInt32(alpha)
            return (UInt32(PixelConversion.multiply(background.r, under)) | UInt32(PixelConversion.multiply(background.g, under)) << 8
                | UInt32(PixelConversion.multiply(background.b, under)) << 16 | UInt32(PixelConversion.multiply(background.a, under)) << 24)
        }
        let sourceWidth = self.width
        let pixels = self.pixels.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: UInt32.self) { source in
                covered.withUnsafeBufferPointer { covered in
                    PixelMemory.bytes(count: width * height * 4) { output in
                        output.withMemoryRebound(to: UInt32.self) { canvas in
                            canvas.initialize(repeating: fill)
                            guard visibleWidth > 0, visibleHeight > 0,
                                  let target = canvas.baseAddress, let sourceBase = source.baseAddress
                            else { return }
                            for row in 0..<visibleHeight {
                                let from = sourceBase + (sourceY + row) * sourceWidth + sourceX
                                let to = target + (targetY + row) * width + targetX
                                if copies {
                                    to.update(from: from, count: visibleWidth)
                                } else if let table = covered.baseAddress {
                                    Self.compositeRow(from, onto: to, count: visibleWidth, covered: table)
                                }
                            }
                        }
                    }
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: duration)
    }

    /// `count` premultiplied pixels drawn source-over the background: each word plus the
    /// background's share for its alpha, `covered[α]` (little-endian RGBA), added without carries.
    @inline(__always)
    private static func compositeRow(_ source: UnsafePointer<UInt32>, onto target: UnsafeMutablePointer<UInt32>,
                                     count: Int, covered: UnsafePointer<UInt32>) {
        for index in 0..<count {
            let word = UInt32(littleEndian: source[index])
            target[index] = (word &+ covered[Int(word >> 24)]).littleEndian
        }
    }
}
