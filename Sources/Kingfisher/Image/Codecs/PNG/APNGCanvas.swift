import Foundation

/// The output buffer APNG frames are composited onto, premultiplied RGBA, starting transparent
/// black, with each frame's dispose op applied before the next frame is drawn.
///
/// A value: copying it (to resume a lazy decode later) shares the storage until the next draw.
struct APNGCanvas: Sendable {
    let width: Int
    let height: Int
    private var pixels: [UInt8]
    /// The region under the last frame as it was before that frame, kept for a PREVIOUS dispose.
    private var saved: [UInt8]?
    /// The last frame drawn, whose dispose op is still to be applied.
    private var pending: APNGFrameInfo?

    /// A transparent canvas; the caller has checked the size against the limits.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = PixelMemory.bytes(count: width * height * 4) { $0.initialize(repeating: 0) }
    }

    /// Disposes of the last frame, then draws `frame` (`source`: its premultiplied pixels, of the
    /// frame's size) into its region with its blend op. The caller has checked that the region
    /// lies on the canvas.
    mutating func draw(_ frame: APNGFrameInfo, source: ImageFrame) {
        if let last = pending {
            switch last.dispose {
            case .none: break
            case .background: clear(last)
            case .previous: restore(last)
            }
        }
        saved = frame.dispose == .previous ? copyRegion(frame) : nil
        pending = frame
        let canvasWidth = width
        source.pixels.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                for row in 0..<frame.height {
                    var from = row &* frame.width &* 4
                    var to = ((frame.y &+ row) &* canvasWidth &+ frame.x) &* 4
                    if frame.blend == .source {
                        for offset in 0..<(frame.width &* 4) { output[to &+ offset] = input[from &+ offset] }
                        continue
                    }
                    for _ in 0..<frame.width {
                        let alpha = input[from &+ 3]
                        if alpha == 255 {
                            for channel in 0..<4 { output[to &+ channel] = input[from &+ channel] }
                        } else if alpha != 0 {
                            let rest = UInt32(255 &- alpha)
                            for channel in 0..<4 {
                                output[to &+ channel] = input[from &+ channel] &+ PixelConversion.multiply(output[to &+ channel], rest)
                            }
                        }
                        from &+= 4
                        to &+= 4
                    }
                }
            }
        }
    }

    /// The canvas as it is now, shown for `duration` seconds.
    func snapshot(duration: TimeInterval) -> ImageFrame {
        ImageFrame(unchecked: width, height: height, pixels: pixels, duration: duration)
    }

    private mutating func clear(_ frame: APNGFrameInfo) {
        let canvasWidth = width
        pixels.withUnsafeMutableBufferPointer { output in
            for row in 0..<frame.height {
                let start = ((frame.y &+ row) &* canvasWidth &+ frame.x) &* 4
                UnsafeMutableBufferPointer(rebasing: output[start..<(start &+ frame.width &* 4)]).update(repeating: 0)
            }
        }
    }

    private func copyRegion(_ frame: APNGFrameInfo) -> [UInt8] {
        var region: [UInt8] = []
        region.reserveCapacity(frame.width * frame.height * 4)
        for row in 0..<frame.height {
            let start = ((frame.y + row) * width + frame.x) * 4
            region += pixels[start..<(start + frame.width * 4)]
        }
        return region
    }

    private mutating func restore(_ frame: APNGFrameInfo) {
        guard let saved, saved.count == frame.width * frame.height * 4 else { return }
        let rowBytes = frame.width * 4
        for row in 0..<frame.height {
            let start = ((frame.y + row) * width + frame.x) * 4
            pixels.replaceSubrange(start..<(start + rowBytes), with: saved[(row * rowBytes)..<((row + 1) * rowBytes)])
        }
    }
}
