import Foundation

/// Repeated box blurs over premultiplied RGBA8: the Gaussian approximation Kingfisher gets from
/// `vImageBoxConvolve_ARGB8888`, with the same mapping from radius to box size and pass count.
///
/// Each pass averages a window of odd width along rows and along columns; pixels beyond the
/// edges repeat the edge pixel. All row passes run first (each row through two small buffers),
/// then all column passes (strip by strip, in place): box filters commute, so this differs from
/// vImage's alternation by rounding only. A running sum per channel makes a pass cost the same
/// for any box size, and the division by the box size is a multiply and a shift. All channels
/// use the same arithmetic, so a colour never exceeds its alpha, and a constant image comes back
/// unchanged.
enum BoxBlur {
    /// How to blur: the box width in pixels (odd) and how many times to apply it (1...3).
    struct Plan: Equatable {
        let boxSize: Int
        let passes: Int
    }

    /// The widest box; beyond it the multiply-shift division would lose exactness. Kingfisher's
    /// mapping reaches it at a radius of about 17,400 pixels.
    static let maxBoxSize = 32_767

    /// Bits of the fixed-point reciprocal of the box size.
    private static let shift: UInt32 = 23

    /// Kingfisher's mapping from a radius in pixels to box passes; `nil` (nothing to do) when the
    /// radius is not positive or not a number.
    ///
    /// The box width is `floor(s · 3·√(2π)/4 + 0.5)` with `s = max(radius, 2)`, made odd by adding
    /// one when even (the SVG recipe for three boxes approximating a Gaussian of deviation `s`);
    /// radii below 0.5 get one pass, below 1.5 two, others three.
    static func plan(radius: CGFloat) -> Plan? {
        guard radius > 0 else { return nil }
        let sigma = Double(max(radius, 2))
        let width = (sigma * 3 * (2 * Double.pi).squareRoot() / 4 + 0.5).rounded(.down)
        var box = width >= Double(maxBoxSize) ? maxBoxSize : Int(width)
        if box.isMultiple(of: 2) { box += 1 }
        let passes = radius < 0.5 ? 1 : (radius < 1.5 ? 2 : 3)
        return Plan(boxSize: min(box, maxBoxSize), passes: passes)
    }

    /// `frame` blurred by `plan`; the duration is kept.
    static func blurred(_ frame: ImageFrame, plan: Plan) -> ImageFrame {
        let width = frame.width
        let height = frame.height
        let count = frame.pixels.count
        let radius = (plan.boxSize - 1) / 2
        let multiplier = UInt32((Double(1 << shift) / Double(plan.boxSize)).rounded())
        let pixels = PixelMemory.bytes(count: count) { output in
            guard let outputBase = output.baseAddress else { return }
            frame.pixels.withUnsafeBufferPointer { source in
                guard let sourceBase = source.baseAddress else { return }
                horizontalPasses(from: sourceBase, to: outputBase, width: width, height: height,
                                 radius: radius, passes: plan.passes, multiplier: multiplier)
            }
            verticalPassesInPlace(outputBase, width: width, height: height, radius: radius,
                                  passes: plan.passes, multiplier: multiplier)
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels, duration: frame.duration)
    }

    /// Every row of `source` blurred `passes` times horizontally into `target`, through two
    /// row buffers that stay in the first-level cache.
    private static func horizontalPasses(from source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>,
                                         width: Int, height: Int, radius: Int, passes: Int, multiplier: UInt32) {
        let rowBytes = width * 4
        let rowA = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
        let rowB = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
        defer {
            rowA.deallocate()
            rowB.deallocate()
        }
        for y in 0..<height {
            let input = source + y * rowBytes
            let output = target + y * rowBytes
            switch passes {
            case 1:
                blurRow(input, output, width: width, radius: radius, multiplier: multiplier)
            case 2:
                blurRow(input, rowA, width: width, radius: radius, multiplier: multiplier)
                blurRow(rowA, output, width: width, radius: radius, multiplier: multiplier)
            default:
                blurRow(input, rowA, width: width, radius: radius, multiplier: multiplier)
                blurRow(rowA, rowB, width: width, radius: radius, multiplier: multiplier)
                blurRow(rowB, output, width: width, radius: radius, multiplier: multiplier)
            }
        }
    }

    /// One horizontal box pass over one row of `width` pixels.
    @inline(__always)
    private static func blurRow(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>,
                                width: Int, radius: Int, multiplier: UInt32) {
        let last = width - 1
        let half: UInt32 = 1 << (shift - 1)
        // The window around x = 0: the edge pixel r + 1 times, then the pixels to its right,
        // the last one repeated when the window reaches past the end of the row.
        let inside = min(radius, last)
        let leftCopies = UInt32(truncatingIfNeeded: radius + 1)
        let rightCopies = UInt32(truncatingIfNeeded: radius - inside)
        var s0 = UInt32(input[0]) &* leftCopies &+ UInt32(input[last * 4]) &* rightCopies
        var s1 = UInt32(input[1]) &* leftCopies &+ UInt32(input[last * 4 + 1]) &* rightCopies
        var s2 = UInt32(input[2]) &* leftCopies &+ UInt32(input[last * 4 + 2]) &* rightCopies
        var s3 = UInt32(input[3]) &* leftCopies &+ UInt32(input[last * 4 + 3]) &* rightCopies
        var k = 1
        while k <= inside {
            let p = input + k * 4
            s0 &+= UInt32(p[0]); s1 &+= UInt32(p[1]); s2 &+= UInt32(p[2]); s3 &+= UInt32(p[3])
            k &+= 1
        }
        var x = 0
        while x < width {
            let o = output + x &* 4
            o[0] = UInt8(truncatingIfNeeded: (s0 &* multiplier &+ half) >> shift)
            o[1] = UInt8(truncatingIfNeeded: (s1 &* multiplier &+ half) >> shift)
            o[2] = UInt8(truncatingIfNeeded: (s2 &* multiplier &+ half) >> shift)
            o[3] = UInt8(truncatingIfNeeded: (s3 &* multiplier &+ half) >> shift)
            let add = input + min(x &+ radius &+ 1, last) &* 4
            let sub = input + max(x &- radius, 0) &* 4
            s0 = s0 &+ UInt32(add[0]) &- UInt32(sub[0])
            s1 = s1 &+ UInt32(add[1]) &- UInt32(sub[1])
            s2 = s2 &+ UInt32(add[2]) &- UInt32(sub[2])
            s3 = s3 &+ UInt32(add[3]) &- UInt32(sub[3])
            x &+= 1
        }
    }

    /// Bytes of a column strip for an image `height` rows tall: the vertical passes run strip by
    /// strip, and the two strip buffers between passes (`bytes × height` each) should stay in
    /// the second-level cache.
    private static func stripBytes(height: Int) -> Int {
        max(64, min(512, (256 * 1024 / height) & ~15))
    }

    /// Every column of `image` blurred `passes` times vertically, in place, strip by strip.
    ///
    /// The first pass reads a strip of the image into a strip buffer; only then does the last
    /// pass write the strip back, so no pixel is overwritten while it is still needed. A single
    /// pass goes through a strip buffer and is copied back.
    private static func verticalPassesInPlace(_ image: UnsafeMutablePointer<UInt8>, width: Int, height: Int,
                                              radius: Int, passes: Int, multiplier: UInt32) {
        let rowBytes = width * 4
        let stripCapacity = min(stripBytes(height: height), rowBytes)
        let stripA = UnsafeMutablePointer<UInt8>.allocate(capacity: stripCapacity * height)
        let stripB = UnsafeMutablePointer<UInt8>.allocate(capacity: stripCapacity * height)
        let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: stripCapacity)
        defer {
            stripA.deallocate()
            stripB.deallocate()
            sums.deallocate()
        }
        var offset = 0
        while offset < rowBytes {
            let bytes = min(stripCapacity, rowBytes - offset)
            var input = UnsafePointer(image + offset)
            var inputStride = rowBytes
            var buffers = (stripA, stripB)
            for pass in 0..<passes {
                let direct = pass == passes - 1 && pass > 0
                let output = direct ? image + offset : buffers.0
                verticalPass(from: input, fromStride: inputStride, to: output, toStride: direct ? rowBytes : bytes,
                             bytes: bytes, sums: sums, height: height, radius: radius, multiplier: multiplier)
                input = UnsafePointer(buffers.0)
                inputStride = bytes
                buffers = (buffers.1, buffers.0)
            }
            if passes == 1 {
                for y in 0..<height {
                    (image + offset + y * rowBytes).update(from: stripA + y * bytes, count: bytes)
                }
            }
            offset += bytes
        }
    }

    /// One vertical box pass over `bytes` byte columns: a running sum per column, rows streamed
    /// top to bottom so the inner loop is a flat, vectorisable walk along a row.
    private static func verticalPass(from source: UnsafePointer<UInt8>, fromStride: Int,
                                     to target: UnsafeMutablePointer<UInt8>, toStride: Int, bytes: Int,
                                     sums: UnsafeMutablePointer<UInt32>, height: Int, radius: Int, multiplier: UInt32) {
        let last = height - 1
        let half: UInt32 = 1 << (shift - 1)
        let inside = min(radius, last)
        let topCopies = UInt32(truncatingIfNeeded: radius + 1)
        let bottomCopies = UInt32(truncatingIfNeeded: radius - inside)
        let top = source
        let bottom = source + last * fromStride
        for i in 0..<bytes {
            sums[i] = UInt32(top[i]) &* topCopies &+ UInt32(bottom[i]) &* bottomCopies
        }
        if inside >= 1 {
            for k in 1...inside {
                let row = source + k * fromStride
                for i in 0..<bytes {
                    sums[i] &+= UInt32(row[i])
                }
            }
        }
        for y in 0..<height {
            let output = target + y * toStride
            let add = source + min(y + radius + 1, last) * fromStride
            let sub = source + max(y - radius, 0) * fromStride
            for i in 0..<bytes {
                let sum = sums[i]
                output[i] = UInt8(truncatingIfNeeded: (sum &* multiplier &+ half) >> shift)
                sums[i] = sum &+ UInt32(add[i]) &- UInt32(sub[i])
            }
        }
    }
}
