import Foundation

/// Median cut over a histogram of the opaque pixels with 5 bits per channel.
///
/// Boxes of histogram cells are split one at a time, always the box whose best split removes the
/// most squared error, at the plane (on any axis) that leaves the least squared error in the two
/// halves. Each box gives the mean of its pixels as a palette colour; each occupied cell is then
/// mapped once to the palette colour nearest its own mean, and pixels look their cell up.
struct MedianCutQuantizer {
    private static let side = 32
    private static let cellCount = side * side * side

    /// Pixel count and sums of one cell, box or slab, in 8-bit channel values.
    struct Stats {
        var count = 0
        var red = 0
        var green = 0
        var blue = 0
        /// Sum of r² + g² + b².
        var squares = 0

        mutating func add(_ other: Stats) {
            count &+= other.count
            red &+= other.red
            green &+= other.green
            blue &+= other.blue
            squares &+= other.squares
        }

        func subtracting(_ other: Stats) -> Stats {
            Stats(count: count - other.count, red: red - other.red, green: green - other.green,
                  blue: blue - other.blue, squares: squares - other.squares)
        }

        /// Sum of squared distances of the pixels to their mean.
        var squaredError: Double {
            guard count > 0 else { return 0 }
            let r = Double(red), g = Double(green), b = Double(blue)
            return Double(squares) - (r * r + g * g + b * b) / Double(count)
        }

        /// The mean colour, rounded.
        var mean: (UInt8, UInt8, UInt8) {
            guard count > 0 else { return (0, 0, 0) }
            let half = count / 2
            return (UInt8(clamping: (red + half) / count), UInt8(clamping: (green + half) / count), UInt8(clamping: (blue + half) / count))
        }
    }

    /// A box of cells: inclusive bounds per axis (red, green, blue), its stats and its best split.
    private struct Box {
        var lower: [Int]
        var upper: [Int]
        var stats = Stats()
        /// Where to split: on `axis`, cells up to `cut` go left; `nil` when the box cannot split.
        var split: (axis: Int, cut: Int, gain: Double)?
    }

    private var cells: [Stats]

    /// Builds the histogram of the pixels of straight-alpha `rgba` with alpha of at least 128.
    init(rgba: UnsafeBufferPointer<UInt8>, pixelCount: Int) {
        cells = [Stats](repeating: Stats(), count: Self.cellCount)
        cells.withUnsafeMutableBufferPointer { cells in
            for pixel in 0..<pixelCount {
                let offset = pixel &* 4
                guard rgba[offset &+ 3] >= ColorQuantizer.alphaThreshold else { continue }
                let r = Int(rgba[offset]), g = Int(rgba[offset &+ 1]), b = Int(rgba[offset &+ 2])
                let cell = Self.cellIndex(r, g, b)
                cells[cell].count &+= 1
                cells[cell].red &+= r
                cells[cell].green &+= g
                cells[cell].blue &+= b
                cells[cell].squares &+= r &* r &+ g &* g &+ b &* b
            }
        }
    }

    @inline(__always)
    private static func cellIndex(_ r: Int, _ g: Int, _ b: Int) -> Int {
        (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
    }

    /// The frame with a palette of at most `capacity` colours (after the transparent index 0 when
    /// `hasTransparency`), each opaque pixel taking the colour nearest its cell's mean.
    func indexedFrame(rgba: UnsafeBufferPointer<UInt8>, pixelCount: Int, capacity: Int, hasTransparency: Bool) -> IndexedFrame {
        let colors = paletteColors(capacity: capacity)
        let firstIndex = hasTransparency ? 1 : 0
        var palette: [UInt8] = hasTransparency ? [0, 0, 0] : []
        for color in colors {
            palette.append(contentsOf: [color.0, color.1, color.2])
        }
        let lookup = cellLookup(colors: colors, firstIndex: firstIndex)
        var indices = [UInt8](repeating: 0, count: pixelCount)
        lookup.withUnsafeBufferPointer { lookup in
            indices.withUnsafeMutableBufferPointer { output in
                for pixel in 0..<pixelCount {
                    let offset = pixel &* 4
                    if rgba[offset &+ 3] < ColorQuantizer.alphaThreshold {
                        output[pixel] = 0
                    } else {
                        output[pixel] = lookup[Self.cellIndex(Int(rgba[offset]), Int(rgba[offset &+ 1]), Int(rgba[offset &+ 2]))]
                    }
                }
            }
        }
        return IndexedFrame(indices: indices, palette: palette, transparentIndex: hasTransparency ? 0 : nil)
    }

    /// Splits the histogram into at most `capacity` boxes and returns their mean colours.
    private func paletteColors(capacity: Int) -> [(UInt8, UInt8, UInt8)] {
        var boxes = [analyzed(Box(lower: [0, 0, 0], upper: [Self.side - 1, Self.side - 1, Self.side - 1]))]
        while boxes.count < capacity {
            var best: Int?
            var bestGain = -1.0
            for (index, box) in boxes.enumerated() {
                if let split = box.split, split.gain > bestGain {
                    best = index
                    bestGain = split.gain
                }
            }
            guard let index = best, let split = boxes[index].split else { break }
            var left = boxes[index]
            var right = boxes[index]
            left.upper[split.axis] = split.cut
            right.lower[split.axis] = split.cut + 1
            boxes[index] = analyzed(left)
            boxes.append(analyzed(right))
        }
        return boxes.filter { $0.stats.count > 0 }.map(\.stats.mean)
    }

    /// `box` shrunk to its occupied cells, with its stats and its best split.
    private func analyzed(_ box: Box) -> Box {
        var box = box
        // Per axis, the stats of each slab of cells one cell thick: red slabs, then green, then blue.
        var slabs = [Stats](repeating: Stats(), count: 3 * Self.side)
        var lower = [Self.side, Self.side, Self.side]
        var upper = [-1, -1, -1]
        cells.withUnsafeBufferPointer { cells in
            for r in box.lower[0]...box.upper[0] {
                for g in box.lower[1]...box.upper[1] {
                    for b in box.lower[2]...box.upper[2] {
                        let cell = cells[r << 10 | g << 5 | b]
                        guard cell.count > 0 else { continue }
                        slabs[r].add(cell)
                        slabs[Self.side + g].add(cell)
                        slabs[2 * Self.side + b].add(cell)
                        lower[0] = min(lower[0], r)
                        upper[0] = max(upper[0], r)
                        lower[1] = min(lower[1], g)
                        upper[1] = max(upper[1], g)
                        lower[2] = min(lower[2], b)
                        upper[2] = max(upper[2], b)
                    }
                }
            }
        }
        box.stats = Stats()
        box.split = nil
        guard upper[0] >= 0 else { return box }
        box.lower = lower
        box.upper = upper
        for position in lower[0]...upper[0] {
            box.stats.add(slabs[position])
        }
        let error = box.stats.squaredError
        for axis in 0..<3 where lower[axis] < upper[axis] {
            var leftStats = Stats()
            for cut in lower[axis]..<upper[axis] {
                leftStats.add(slabs[axis * Self.side + cut])
                let rightStats = box.stats.subtracting(leftStats)
                guard leftStats.count > 0, rightStats.count > 0 else { continue }
                let gain = error - leftStats.squaredError - rightStats.squaredError
                if gain > (box.split?.gain ?? -1) {
                    box.split = (axis, cut, gain)
                }
            }
        }
        return box
    }

    /// For each occupied cell, the index of the palette colour nearest the cell's mean.
    private func cellLookup(colors: [(UInt8, UInt8, UInt8)], firstIndex: Int) -> [UInt8] {
        var lookup = [UInt8](repeating: UInt8(truncatingIfNeeded: firstIndex), count: Self.cellCount)
        let flat = colors.flatMap { [Int($0.0), Int($0.1), Int($0.2)] }
        cells.withUnsafeBufferPointer { cells in
            flat.withUnsafeBufferPointer { palette in
                lookup.withUnsafeMutableBufferPointer { lookup in
                    for cell in 0..<Self.cellCount where cells[cell].count > 0 {
                        let mean = cells[cell].mean
                        let r = Int(mean.0), g = Int(mean.1), b = Int(mean.2)
                        var best = 0
                        var bestDistance = Int.max
                        var entry = 0
                        while entry < palette.count {
                            let dr = palette[entry] &- r, dg = palette[entry &+ 1] &- g, db = palette[entry &+ 2] &- b
                            let distance = dr &* dr &+ dg &* dg &+ db &* db
                            if distance < bestDistance {
                                bestDistance = distance
                                best = entry / 3
                            }
                            entry &+= 3
                        }
                        lookup[cell] = UInt8(truncatingIfNeeded: firstIndex &+ best)
                    }
                }
            }
        }
        return lookup
    }
}
