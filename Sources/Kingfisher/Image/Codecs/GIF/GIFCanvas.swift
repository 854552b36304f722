import CGIFLib
import Foundation

/// The part of the logical screen a frame covers, clipped to the screen as browsers clip it.
struct GIFFrameRect: Equatable, Sendable {
    let minX: Int
    let minY: Int
    let maxX: Int
    let maxY: Int

    /// Clips the image descriptor's rectangle to a `screenWidth`×`screenHeight` screen.
    init(left: Int, top: Int, width: Int, height: Int, screenWidth: Int, screenHeight: Int) {
        minX = min(max(left, 0), screenWidth)
        minY = min(max(top, 0), screenHeight)
        maxX = max(minX, min(left + max(width, 0), screenWidth))
        maxY = max(minY, min(top + max(height, 0), screenHeight))
    }

    var isEmpty: Bool { minX >= maxX || minY >= maxY }
}

/// The logical screen that GIF frames are composited onto, with the disposal methods applied
/// between frames.
///
/// Four bytes per pixel, R, G, B, A, written as one `UInt32`: a GIF pixel is either opaque or
/// fully transparent, so it is already premultiplied, and transparent pixels are all-zero.
struct GIFCanvas: Sendable {
    let width: Int
    let height: Int
    private var pixels: [UInt8]
    /// The screen before the current frame was drawn, kept when the frame restores to previous.
    private var saved: [UInt8]?
    /// How to dispose of the frame drawn last, applied when the next frame begins.
    private var pendingDisposal: (method: Int, rect: GIFFrameRect)?

    /// A transparent screen. The caller has checked the size against the limits.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = PixelMemory.bytes(count: width * height * 4) { $0.initialize(repeating: 0) }
    }

    /// Disposes of the previous frame, then gets ready to draw a frame into `rect` that will be
    /// disposed of with `disposal` (0 or 1: leave; 2: clear to transparent; 3: restore to previous;
    /// 4–7 are undefined and treated as leave, as browsers do).
    mutating func beginFrame(rect: GIFFrameRect, disposal: Int) {
        if let pending = pendingDisposal {
            switch pending.method {
            case 2:
                clear(pending.rect)
            case 3:
                if let saved { pixels = saved }
            default:
                break
            }
        }
        // Sharing the storage is free until the frame draws; drawing then copies it once.
        saved = disposal == 3 ? pixels : nil
        pendingDisposal = (disposal, rect)
    }

    /// Draws one decoded row of palette indices whose first index belongs at screen column `left`
    /// of screen row `y`; parts outside the screen are skipped, and so are transparent entries.
    mutating func drawRow(_ row: UnsafeBufferPointer<UInt8>, left: Int, y: Int, palette: UnsafeBufferPointer<UInt32>) {
        guard y >= 0, y < height, left < width, palette.count == 256 else { return }
        let startX = max(left, 0)
        let endX = min(left + row.count, width)
        guard startX < endX else { return }
        let screenWidth = width
        pixels.withUnsafeMutableBytes { bytes in
            bytes.withMemoryRebound(to: UInt32.self) { screen in
                var destination = y &* screenWidth &+ startX
                var source = startX &- left
                for _ in startX..<endX {
                    let color = palette[Int(row[source])]
                    if color != 0 { screen[destination] = color }
                    destination &+= 1
                    source &+= 1
                }
            }
        }
    }

    /// The screen as it is now, as a frame shown for `duration` seconds.
    ///
    /// The frame shares the canvas's storage; the next frame drawn copies it first, and the last
    /// frame of an image is never copied at all.
    func snapshot(duration: TimeInterval) -> ImageFrame {
        ImageFrame(unchecked: width, height: height, pixels: pixels, duration: duration)
    }

    private mutating func clear(_ rect: GIFFrameRect) {
        guard !rect.isEmpty else { return }
        let screenWidth = width
        pixels.withUnsafeMutableBytes { screen in
            for y in rect.minY..<rect.maxY {
                let start = (y &* screenWidth &+ rect.minX) &* 4
                let end = (y &* screenWidth &+ rect.maxX) &* 4
                UnsafeMutableRawBufferPointer(rebasing: screen[start..<end]).initializeMemory(as: UInt8.self, repeating: 0)
            }
        }
    }

    /// The palette of a frame as canvas pixels: `colors` made opaque, every entry past them and the
    /// transparent entry all-zero (so an index past the colour table draws nothing).
    static func palette(colors: UnsafeBufferPointer<GifColorType>, transparentIndex: Int?) -> [UInt32] {
        var table = [UInt32](repeating: 0, count: 256)
        for (index, color) in colors.prefix(256).enumerated() {
            let packed = UInt32(color.Red) | UInt32(color.Green) << 8 | UInt32(color.Blue) << 16 | 0xFF00_0000
            table[index] = packed.littleEndian
        }
        if let transparentIndex, transparentIndex >= 0, transparentIndex < 256 {
            table[transparentIndex] = 0
        }
        return table
    }
}
