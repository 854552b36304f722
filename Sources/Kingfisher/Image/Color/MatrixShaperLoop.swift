/// The per-pixel loop of ``MatrixShaperTransform``, with its tables rearranged so that a pixel costs
/// three 16-byte loads, two vector adds, one shift and three byte lookups.
///
/// It gives exactly the bytes of the plain fixed-point computation (linear value of each code from
/// `input`, the 3×3 `matrix` at 2^14, +8192, arithmetic shift right by 14, clamp to 0...16383,
/// `encode`), rearranged without changing a single integer result:
/// - each code's three products with its matrix column are looked up whole (`terms`), and integer
///   sums do not depend on their grouping;
/// - the clamp goes into the output table: it covers every shifted sum the terms can give, from the
///   lowest (`low`) to the highest, with `encode[0]` below 0 and `encode[16383]` above 16383. The
///   red terms carry the rounding and `-low · 2^14`, so every sum is in `0 ..< (span · 2^14)`, below
///   2^32: unsigned 32-bit wrapping adds give it exactly, and its shift is a valid index.
struct MatrixShaperLoop: Sendable {
    /// The largest output table: every shifted sum must stay below 2^32.
    private static let maximumSpan: Int64 = 1 << 18

    /// Per code, R codes then G then B: its contribution to the red, green and blue sums, then 0.
    private let terms: [SIMD4<UInt32>]
    /// sRGB-encoded 8-bit value of each shifted sum, from the lowest the terms can give.
    private let output: [UInt8]

    /// The loop for 768 `input` values (R, G, B; 0...16383), a 9-entry `matrix` (row by row, 2^14 = 1)
    /// and a 16,384-entry `encode` table; `nil` when the sums could reach 2^32 (a matrix row's
    /// absolute sum below 7.9 keeps them far from it) or a table has the wrong size.
    init?(input: [UInt16], matrix: [Int32], encode: [UInt8]) {
        guard input.count == 768, matrix.count == 9, encode.count == 16_384 else { return nil }
        // Exact products, in 64 bits: product(c, v)[k] is code v of channel c times matrix[k][c].
        func product(_ channel: Int, _ code: Int, _ row: Int) -> Int64 {
            Int64(matrix[row * 3 + channel]) * Int64(input[channel * 256 + code]) + (channel == 0 ? 8192 : 0)
        }
        var low = Int64.max
        var high = Int64.min
        for row in 0..<3 {
            var least: Int64 = 0
            var most: Int64 = 0
            for channel in 0..<3 {
                let values = (0..<256).map { product(channel, $0, row) }
                least += values.min() ?? 0
                most += values.max() ?? 0
            }
            low = min(low, least >> 14)
            high = max(high, most >> 14)
        }
        guard high - low < Self.maximumSpan else { return nil }
        let offset = -low << 14
        terms = (0..<3).flatMap { channel in
            (0..<256).map { code in
                let shift = channel == 0 ? offset : 0
                return SIMD4<UInt32>(UInt32(truncatingIfNeeded: product(channel, code, 0) + shift),
                                     UInt32(truncatingIfNeeded: product(channel, code, 1) + shift),
                                     UInt32(truncatingIfNeeded: product(channel, code, 2) + shift), 0)
            }
        }
        output = (low...high).map { encode[Int(min(max($0, 0), 16_383))] }
    }

    /// Converts `count` RGBA pixels from `start` in place; alpha is neither read nor written.
    func run(_ start: UnsafeMutableRawPointer, count: Int) {
        guard count > 0 else { return }
        terms.withUnsafeBufferPointer { terms in
            output.withUnsafeBufferPointer { output in
                guard let terms = terms.baseAddress, let output = output.baseAddress else { return }
                for index in 0..<count {
                    let pixel = index &* 4
                    let red = Int(start.load(fromByteOffset: pixel, as: UInt8.self))
                    let green = Int(start.load(fromByteOffset: pixel &+ 1, as: UInt8.self))
                    let blue = Int(start.load(fromByteOffset: pixel &+ 2, as: UInt8.self))
                    let sum = (terms[red] &+ terms[256 &+ green] &+ terms[512 &+ blue]) &>> 14
                    start.storeBytes(of: output[Int(sum[0])], toByteOffset: pixel, as: UInt8.self)
                    start.storeBytes(of: output[Int(sum[1])], toByteOffset: pixel &+ 1, as: UInt8.self)
                    start.storeBytes(of: output[Int(sum[2])], toByteOffset: pixel &+ 2, as: UInt8.self)
                }
            }
        }
    }
}
