import Foundation

/// The eight ways a frame can be mirrored or turned by quarter turns, done as fast as memory allows.
///
/// These move the pixels exactly as ``ImageOrientation`` does (a flip is `.upMirrored` or
/// `.downMirrored`, a turn `.right`, `.down` or `.left`), with loops made for each case: rows are
/// copied whole for a vertical flip, words reversed for a horizontal one and a half turn, and
/// quarter turns walk the frame in square tiles so that reads and writes both stay in cache.
extension ImageFrame {
    /// Side of the tiles quarter turns copy: 32 × 32 pixels of source and of target fit in L1.
    private static let tile = 32

    /// The frame mirrored top to bottom, flipped left to right, or both (a half turn).
    func flipped(horizontal: Bool, vertical: Bool) -> ImageFrame {
        guard horizontal || vertical else { return self }
        let width = self.width
        let height = self.height
        return mapWords(width: width, height: height) { source, target in
            for y in 0..<height {
                let from = source + y * width
                let to = target + (vertical ? height - 1 - y : y) * width
                if horizontal {
                    for x in 0..<width {
                        to[width &- 1 &- x] = from[x]
                    }
                } else {
                    to.update(from: from, count: width)
                }
            }
        }
    }

    /// The frame turned a quarter clockwise (`clockwise`) or counter-clockwise; width and height swap.
    func turnedQuarter(clockwise: Bool) -> ImageFrame {
        let width = self.width
        let height = self.height
        let tile = Self.tile
        return mapWords(width: height, height: width) { source, target in
            for tileY in stride(from: 0, to: height, by: tile) {
                let endY = min(tileY + tile, height)
                for tileX in stride(from: 0, to: width, by: tile) {
                    let endX = min(tileX + tile, width)
                    for y in tileY..<endY {
                        let row = source + y * width
                        if clockwise {
                            // (x, y) lands at (height − 1 − y, x).
                            let column = target + (height &- 1 &- y)
                            for x in tileX..<endX {
                                column[x &* height] = row[x]
                            }
                        } else {
                            // (x, y) lands at (y, width − 1 − x).
                            let column = target + y
                            for x in tileX..<endX {
                                column[(width &- 1 &- x) &* height] = row[x]
                            }
                        }
                    }
                }
            }
        }
    }

    /// A frame of `width` × `height` whose pixels `body` writes as 32-bit words from this frame's;
    /// the duration is kept.
    private func mapWords(width: Int, height: Int,
                          _ body: (UnsafePointer<UInt32>, UnsafeMutablePointer<UInt32>) -> Void) -> ImageFrame {
        let result = pixels.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: UInt32.self) { source in
                PixelMemory.bytes(count: width * height * 4) { output in
                    output.withMemoryRebound(to: UInt32.self) { target in
                        guard let sourceBase = source.baseAddress, let targetBase = target.baseAddress else { return }
                        body(sourceBase, targetBase)
                    }
                }
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: result, duration: duration)
    }
}
