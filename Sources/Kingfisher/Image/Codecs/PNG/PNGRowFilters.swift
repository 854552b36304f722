/// PNG's five row filters (None, Sub, Up, Average, Paeth) over 8-bit samples: undone for the
/// fast decoder, and chosen and applied row by row for the encoder.
///
/// `bpp` is the distance in bytes to the same sample of the pixel on the left (the samples per
/// pixel here). A missing previous row is a row of zeros, as the first row's is.
enum PNGRowFilters {
    /// Undoes filter `type` on `row` (`count` bytes) in place; false for a type PNG does not define.
    static func unfilter(_ type: UInt8, row: UnsafeMutablePointer<UInt8>, previous: UnsafePointer<UInt8>?, count: Int, bpp: Int) -> Bool {
        switch (type, previous) {
        case (0, _), (2, nil):
            break
        case (1, _), (4, nil):
            // Paeth with the row above all zeros predicts the left byte, as Sub does.
            var index = bpp
            while index < count {
                row[index] &+= row[index &- bpp]
                index &+= 1
            }
        case (2, let above?):
            for index in 0..<count { row[index] &+= above[index] }
        case (3, nil):
            var index = bpp
            while index < count {
                row[index] &+= row[index &- bpp] >> 1
                index &+= 1
            }
        case (3, let above?):
            for index in 0..<min(bpp, count) { row[index] &+= above[index] >> 1 }
            var index = bpp
            while index < count {
                row[index] &+= UInt8(truncatingIfNeeded: (UInt16(row[index &- bpp]) &+ UInt16(above[index])) >> 1)
                index &+= 1
            }
        case (4, let above?):
            for index in 0..<min(bpp, count) { row[index] &+= above[index] }
            var index = bpp
            while index < count {
                row[index] &+= paeth(row[index &- bpp], above[index], above[index &- bpp])
                index &+= 1
            }
        default:
            return false
        }
        return true
    }

    /// Undoes filter `type` on a row of 3- or 4-byte pixels (`bpp`), writing straight RGBA8 into
    /// `output` (alpha 255 for RGB) and reading the row above from the RGBA8 row written before it
    /// (`above`, nil for the first row); false for a type PNG does not define.
    ///
    /// A pixel's samples go through the predictor together, in one vector: Paeth, which most
    /// encoders choose for photographs, cannot be vectorised along the row (each pixel needs the
    /// one on its left), but it can across the samples of a pixel.
    static func unfilterPixels(_ type: UInt8, row: UnsafePointer<UInt8>, bpp: Int, width: Int,
                               above: UnsafePointer<UInt8>?, output: UnsafeMutablePointer<UInt8>) -> Bool {
        let mask = SIMD4<Int16>(repeating: 0xFF)
        var left = SIMD4<Int16>.zero
        switch (type, above) {
        case (0, _), (2, nil):
            for x in 0..<width { store(load(row + x &* bpp, bpp: bpp), bpp: bpp, into: output + x &* 4) }
        case (1, _), (4, nil):
            for x in 0..<width {
                left = (load(row + x &* bpp, bpp: bpp) &+ left) & mask
                store(left, bpp: bpp, into: output + x &* 4)
            }
        case (2, let above?):
            for x in 0..<width {
                store((load(row + x &* bpp, bpp: bpp) &+ loadRGBA(above + x &* 4)) & mask, bpp: bpp, into: output + x &* 4)
            }
        case (3, let above):
            for x in 0..<width {
                let up = above.map { loadRGBA($0 + x &* 4) } ?? .zero
                left = (load(row + x &* bpp, bpp: bpp) &+ ((left &+ up) &>> 1)) & mask
                store(left, bpp: bpp, into: output + x &* 4)
            }
        case (4, let above?):
            var upperLeft = SIMD4<Int16>.zero
            for x in 0..<width {
                let up = loadRGBA(above + x &* 4)
                let distanceLeft = magnitude(up &- upperLeft)
                let distanceUp = magnitude(left &- upperLeft)
                let distanceCorner = magnitude(left &+ up &- upperLeft &- upperLeft)
                let usesLeft = (distanceLeft .<= distanceUp) .& (distanceLeft .<= distanceCorner)
                let predicted = upperLeft.replacing(with: up, where: distanceUp .<= distanceCorner).replacing(with: left, where: usesLeft)
                left = (load(row + x &* bpp, bpp: bpp) &+ predicted) & mask
                store(left, bpp: bpp, into: output + x &* 4)
                upperLeft = up
            }
        default:
            return false
        }
        return true
    }

    /// The `bpp` (3 or 4) samples at `pointer` as lanes; a missing fourth is 0.
    @inline(__always)
    private static func load(_ pointer: UnsafePointer<UInt8>, bpp: Int) -> SIMD4<Int16> {
        SIMD4(Int16(pointer[0]), Int16(pointer[1]), Int16(pointer[2]), bpp == 4 ? Int16(pointer[3]) : 0)
    }

    @inline(__always)
    private static func loadRGBA(_ pointer: UnsafePointer<UInt8>) -> SIMD4<Int16> {
        SIMD4<Int16>(truncatingIfNeeded: UnsafeRawPointer(pointer).loadUnaligned(as: SIMD4<UInt8>.self))
    }

    /// Writes the lanes as one RGBA8 pixel; alpha is 255 when the source has none.
    @inline(__always)
    private static func store(_ value: SIMD4<Int16>, bpp: Int, into pointer: UnsafeMutablePointer<UInt8>) {
        pointer[0] = UInt8(truncatingIfNeeded: value[0])
        pointer[1] = UInt8(truncatingIfNeeded: value[1])
        pointer[2] = UInt8(truncatingIfNeeded: value[2])
        pointer[3] = bpp == 4 ? UInt8(truncatingIfNeeded: value[3]) : 255
    }

    /// The lanes' absolute values (all are far from `Int16.min`).
    @inline(__always)
    private static func magnitude(_ value: SIMD4<Int16>) -> SIMD4<Int16> {
        let sign = value &>> 15
        return (value ^ sign) &- sign
    }

    /// PNG's Paeth predictor: whichever of left, above and upper-left is nearest to left + above − upper-left.
    @inline(__always)
    static func paeth(_ left: UInt8, _ above: UInt8, _ upperLeft: UInt8) -> UInt8 {
        let a = Int32(left), b = Int32(above), c = Int32(upperLeft)
        let distanceA = abs(b &- c)
        let distanceB = abs(a &- c)
        let distanceC = abs(a &+ b &- c &- c)
        if distanceA <= distanceB && distanceA <= distanceC { return left }
        return distanceB <= distanceC ? above : upperLeft
    }

    /// Filters `row` into `output` (`1 + count` bytes: the type, then the filtered bytes) with the
    /// filter libpng's adaptive choice takes: the smallest sum of the filtered bytes read as signed
    /// magnitudes, the earlier filter on a tie. `above` is the previous row (zeros for the first);
    /// `scratch` holds `count` bytes.
    static func filterAdaptively(row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, isFirstRow: Bool, count: Int, bpp: Int,
                                 scratch: UnsafeMutablePointer<UInt8>, output: UnsafeMutablePointer<UInt8>) {
        var bestType: UInt8 = 0
        var bestSum = Int.max
        for type: UInt8 in 0...4 {
            // Under a row of zeros Up gives None's bytes and Paeth gives Sub's.
            if isFirstRow, type == 2 || type == 4 { continue }
            let sum = filter(type, row: row, above: above, count: count, bpp: bpp, into: scratch, limit: bestSum)
            if sum < bestSum {
                bestSum = sum
                bestType = type
                output.advanced(by: 1).update(from: scratch, count: count)
            }
        }
        output[0] = bestType
    }

    /// Applies filter `type` to `row` into `output` and returns the sum of the filtered bytes as
    /// signed magnitudes, stopping early (with a sum of at least `limit`) once it reaches `limit`.
    static func filter(_ type: UInt8, row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, count: Int, bpp: Int,
                               into output: UnsafeMutablePointer<UInt8>, limit: Int) -> Int {
        // The first pixel has no left neighbour: its left and upper-left samples are zero.
        let head = min(bpp, count)
        for index in 0..<head {
            switch type {
            case 0, 1: output[index] = row[index]
            case 3: output[index] = row[index] &- (above[index] >> 1)
            default: output[index] = row[index] &- above[index]
            }
        }
        var sum = magnitudes(output, from: 0, to: head)
        var index = head
        // The limit is checked once a block, which keeps the inner loops free of it.
        while index < count {
            let start = index
            let end = min(index &+ 512, count)
            switch type {
            case 0:
                while index < end { output[index] = row[index]; index &+= 1 }
            case 1:
                while index < end { output[index] = row[index] &- row[index &- bpp]; index &+= 1 }
            case 2:
                while index < end { output[index] = row[index] &- above[index]; index &+= 1 }
            case 3:
                while index < end {
                    let average = (UInt16(row[index &- bpp]) &+ UInt16(above[index])) >> 1
                    output[index] = row[index] &- UInt8(truncatingIfNeeded: average)
                    index &+= 1
                }
            default:
                while index < end {
                    output[index] = row[index] &- paeth(row[index &- bpp], above[index], above[index &- bpp])
                    index &+= 1
                }
            }
            sum &+= magnitudes(output, from: start, to: end)
            if sum >= limit { return sum }
        }
        return sum
    }

    /// The sum over `bytes[start..<end]` of each byte read as a signed magnitude (0...128).
    @inline(__always)
    private static func magnitudes(_ bytes: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var sum = 0
        var index = start
        while index < end {
            let value = Int(bytes[index])
            sum &+= value < 128 ? value : 256 &- value
            index &+= 1
        }
        return sum
    }
}
