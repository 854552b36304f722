import Foundation

extension SaliencyMap {
    /// Windows scoring within this fraction of the best one count as equally good; the one
    /// nearest the centre of the frame wins among them, so a dull or nearly even picture gets
    /// a centred crop rather than one pulled aside by noise.
    static let tolerance = 1.0 / 512

    /// The `width × height` pixel rectangle of a `frameWidth × frameHeight` frame that holds the
    /// most saliency; sizes must lie in 1...frame size.
    ///
    /// Every position of the window on the reduced grid is scored with a summed-area table; the
    /// chosen cell window is then mapped back to pixels, centred on it and kept inside the frame.
    /// Along an axis where the chosen window is the most central one, the crop is centred exactly.
    func bestWindow(width: Int, height: Int, frameWidth: Int, frameHeight: Int) -> (x: Int, y: Int) {
        let windowWidth = min(self.width, max(1, Int((Double(width) / Double(factor)).rounded())))
        let windowHeight = min(self.height, max(1, Int((Double(height) / Double(factor)).rounded())))
        let cell = bestCells(windowWidth: windowWidth, windowHeight: windowHeight)
        let centredX = abs(2 * cell.x + windowWidth - self.width) <= 1
        let centredY = abs(2 * cell.y + windowHeight - self.height) <= 1
        let x = centredX ? (frameWidth - width) / 2 : cell.x * factor + (windowWidth * factor - width) / 2
        let y = centredY ? (frameHeight - height) / 2 : cell.y * factor + (windowHeight * factor - height) / 2
        return (min(max(x, 0), frameWidth - width), min(max(y, 0), frameHeight - height))
    }

    /// The top-left cell of the `windowWidth × windowHeight` cell window with the most saliency,
    /// ties (within ``tolerance``) going to the window nearest the centre, then to the first found.
    func bestCells(windowWidth: Int, windowHeight: Int) -> (x: Int, y: Int) {
        let table = summedAreaTable()
        let stride = width + 1
        let columns = width - windowWidth + 1
        let rows = height - windowHeight + 1
        var sums = [Int64](repeating: 0, count: columns * rows)
        var best: Int64 = 0
        table.withUnsafeBufferPointer { table in
            sums.withUnsafeMutableBufferPointer { sums in
                for y in 0..<rows {
                    let top = y * stride
                    let bottom = (y + windowHeight) * stride
                    for x in 0..<columns {
                        let sum = table[bottom + x + windowWidth] - table[bottom + x]
                            - table[top + x + windowWidth] + table[top + x]
                        sums[y * columns + x] = sum
                        best = max(best, sum)
                    }
                }
            }
        }
        let threshold = best - Int64((Double(best) * Self.tolerance).rounded(.down))
        var chosen = (x: 0, y: 0)
        var nearest = Int.max
        for y in 0..<rows {
            for x in 0..<columns where sums[y * columns + x] >= threshold {
                let dx = 2 * x + windowWidth - width
                let dy = 2 * y + windowHeight - height
                let distance = dx * dx + dy * dy
                if distance < nearest {
                    nearest = distance
                    chosen = (x, y)
                }
            }
        }
        return chosen
    }

    /// `(width + 1) × (height + 1)` running sums: entry (x, y) is the total score of the cells
    /// above and left of it.
    private func summedAreaTable() -> [Int64] {
        let stride = width + 1
        var table = [Int64](repeating: 0, count: stride * (height + 1))
        scores.withUnsafeBufferPointer { scores in
            table.withUnsafeMutableBufferPointer { table in
                for y in 0..<height {
                    var running: Int64 = 0
                    for x in 0..<width {
                        running += Int64(scores[y * width + x])
                        table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + running
                    }
                }
            }
        }
        return table
    }
}
