import Foundation

/// What the start of a JPEG XL codestream says: the `SizeHeader` and the first fields of the
/// `ImageMetadata` (orientation, animation, alpha), after ISO/IEC 18181-1.
struct JXLCodestreamHeader: Sendable, Equatable {
    var width: Int
    var height: Int
    var orientation: ImageOrientation = .up
    var isAnimated = false
    var loopCount = 0
    var hasAlpha = false

    /// Parses `codestream`, which starts with the `FF 0A` signature.
    ///
    /// The size must be readable; the metadata after it is read as far as the first extra channel
    /// and left at its defaults when the bytes end early.
    init(codestream: [UInt8]) throws {
        guard codestream.count >= 2, codestream[0] == 0xFF, codestream[1] == 0x0A else {
            throw ISOBMFFParseError(description: "the codestream does not start with FF 0A")
        }
        var reader = JXLBitReader(Array(codestream.dropFirst(2)))
        (width, height) = try Self.readSize(&reader)
        try? readMetadata(&reader)
    }

    /// The `SizeHeader`: small sizes in multiples of 8, else explicit sizes; the width may instead
    /// follow from the height by one of seven fixed aspect ratios.
    static func readSize(_ reader: inout JXLBitReader) throws -> (Int, Int) {
        let small = try reader.bool()
        let sizeField: (inout JXLBitReader) throws -> UInt64 = { reader in
            if small { return (UInt64(try reader.bits(5)) + 1) * 8 }
            return try reader.u32(.bits(9, offset: 1), .bits(13, offset: 1), .bits(18, offset: 1), .bits(30, offset: 1))
        }
        let height = try sizeField(&reader)
        let ratio = try reader.bits(3)
        let width = ratio == 0 ? try sizeField(&reader) : widthFromRatio(Int(ratio), height: height)
        return (Int(width), Int(height))
    }

    /// The width for aspect ratio code 1...7 (1:1, 12:10, 4:3, 3:2, 16:9, 5:4, 2:1).
    static func widthFromRatio(_ ratio: Int, height: UInt64) -> UInt64 {
        let ratios: [(UInt64, UInt64)] = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]
        let (numerator, denominator) = ratios[max(0, min(ratios.count - 1, ratio - 1))]
        return height * numerator / denominator
    }

    /// The `ImageMetadata` fields up to the first extra channel's type.
    private mutating func readMetadata(_ reader: inout JXLBitReader) throws {
        if try reader.bool() { return } // all_default: upright, still, no alpha
        if try reader.bool() { // extra_fields
            orientation = ImageOrientation(rawValue: Int(try reader.bits(3)) + 1) ?? .up
            if try reader.bool() { _ = try Self.readSize(&reader) } // intrinsic size
            if try reader.bool() { try Self.skipPreviewHeader(&reader) }
            if try reader.bool() {
                isAnimated = true
                _ = try reader.u32(.value(100), .value(1000), .bits(10, offset: 1), .bits(30, offset: 1))
                _ = try reader.u32(.value(1), .value(1001), .bits(8, offset: 1), .bits(10, offset: 1))
                loopCount = Int(try reader.u32(.value(0), .bits(3, offset: 0), .bits(16, offset: 0), .bits(32, offset: 0)))
                _ = try reader.bool() // have_timecodes
            }
        }
        // BitDepth.
        if try reader.bool() {
            _ = try reader.u32(.value(32), .value(16), .value(24), .bits(6, offset: 1))
            _ = try reader.bits(4)
        } else {
            _ = try reader.u32(.value(8), .value(10), .value(12), .bits(6, offset: 1))
        }
        _ = try reader.bool() // modular_16_bit_buffer_sufficient
        let extraChannels = try reader.u32(.value(0), .value(1), .bits(4, offset: 2), .bits(12, offset: 1))
        guard extraChannels > 0 else { return }
        // The first ExtraChannelInfo: all_default means alpha; otherwise its type, 0 being alpha.
        if try reader.bool() {
            hasAlpha = true
        } else {
            hasAlpha = try reader.u32(.value(0), .value(1), .bits(4, offset: 2), .bits(6, offset: 18)) == 0
        }
    }

    /// Skips a `PreviewHeader`.
    private static func skipPreviewHeader(_ reader: inout JXLBitReader) throws {
        let div8 = try reader.bool()
        let field: (inout JXLBitReader) throws -> Void = { reader in
            if div8 {
                _ = try reader.u32(.value(16), .value(32), .bits(5, offset: 1), .bits(9, offset: 33))
            } else {
                _ = try reader.u32(.bits(6, offset: 1), .bits(8, offset: 65), .bits(10, offset: 321), .bits(12, offset: 1345))
            }
        }
        try field(&reader)
        if try reader.bits(3) == 0 { try field(&reader) }
    }
}
