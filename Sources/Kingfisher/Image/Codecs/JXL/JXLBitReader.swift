import Foundation

/// Reads a JPEG XL codestream's header bits: least significant bit of each byte first, every read
/// bounds-checked.
struct JXLBitReader {
    private let bytes: [UInt8]
    private var position = 0

    /// A reader over `bytes`, starting at the first bit.
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// `count` bits (at most 32) as an unsigned value, the first bit read the least significant.
    mutating func bits(_ count: Int) throws -> UInt32 {
        guard count >= 0, count <= 32, position + count <= bytes.count * 8 else {
            throw ISOBMFFParseError(description: "the codestream header is truncated")
        }
        var value: UInt64 = 0
        for index in 0..<count {
            let bit = (bytes[(position + index) >> 3] >> UInt8((position + index) & 7)) & 1
            value |= UInt64(bit) << UInt64(index)
        }
        position += count
        return UInt32(truncatingIfNeeded: value)
    }

    mutating func bool() throws -> Bool { try bits(1) == 1 }

    /// One of a `U32` field's four distributions, chosen by two selector bits.
    enum Distribution {
        /// A fixed value.
        case value(UInt32)
        /// `count` bits plus `offset`.
        case bits(Int, offset: UInt32)
    }

    /// A `U32` field: two selector bits pick one of the four distributions.
    mutating func u32(_ d0: Distribution, _ d1: Distribution, _ d2: Distribution, _ d3: Distribution) throws -> UInt64 {
        let selector = try bits(2)
        let distribution = [d0, d1, d2, d3][Int(selector)]
        switch distribution {
        case .value(let value): return UInt64(value)
        case let .bits(count, offset): return UInt64(try bits(count)) + UInt64(offset)
        }
    }
}
