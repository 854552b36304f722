import Foundation

/// Why some ISO-BMFF (or JPEG XL) bytes could not be read; the codecs turn it into a
/// ``KingfisherError``.
struct ISOBMFFParseError: Error, Sendable {
    let description: String
}

/// A four-character code, such as a box type or a brand, as its big-endian 32-bit value.
struct FourCC: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt32

    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The code of four ASCII characters; other lengths give a code no box has.
    init(_ text: String) {
        var value: UInt32 = 0
        for byte in text.utf8.prefix(4) { value = value << 8 | UInt32(byte) }
        rawValue = text.utf8.count == 4 ? value : 0
    }

    var description: String {
        let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> UInt32($0)) }
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) }) { return String(decoding: bytes, as: UTF8.self) }
        return String(format: "0x%08x", rawValue)
    }
}

/// One box: its type and where its header and payload lie in the buffer.
struct ISOBMFFBox: Sendable {
    /// The box type.
    let type: FourCC
    /// Offset of the box's first byte.
    let start: Int
    /// Offset just past the box.
    let end: Int
    /// Offset of the payload's first byte (after the 8- or 16-byte header).
    let payloadStart: Int

    /// The payload's offsets.
    var payload: Range<Int> { payloadStart..<end }
}

/// Big-endian reads from a byte buffer; every read is bounds-checked against `limit` and throws
/// ``ISOBMFFParseError`` past it, so no input traps.
struct ISOBMFFReader {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Throws unless `count` bytes at `offset` lie before `limit` (and in the buffer).
    func require(_ offset: Int, _ count: Int, before limit: Int, _ what: @autoclosure () -> String) throws {
        let end = offset.addingReportingOverflow(count)
        guard offset >= 0, count >= 0, !end.overflow, end.partialValue <= min(limit, bytes.count) else {
            throw ISOBMFFParseError(description: "\(what()) runs past the end of its box or of the data")
        }
    }

    func u8(_ offset: Int, before limit: Int) throws -> UInt8 {
        try require(offset, 1, before: limit, "a byte")
        return bytes[offset]
    }

    func u16(_ offset: Int, before limit: Int) throws -> UInt16 {
        try require(offset, 2, before: limit, "a 16-bit field")
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    func u32(_ offset: Int, before limit: Int) throws -> UInt32 {
        try require(offset, 4, before: limit, "a 32-bit field")
        var value: UInt32 = 0
        for index in 0..<4 { value = value << 8 | UInt32(bytes[offset + index]) }
        return value
    }

    func u64(_ offset: Int, before limit: Int) throws -> UInt64 {
        try require(offset, 8, before: limit, "a 64-bit field")
        var value: UInt64 = 0
        for index in 0..<8 { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    func fourCC(_ offset: Int, before limit: Int) throws -> FourCC {
        FourCC(rawValue: try u32(offset, before: limit))
    }

    /// An unsigned field of `byteCount` bytes (0, 2, 4 or 8), as ISO-BMFF's variable-width fields are.
    func unsigned(_ offset: Int, byteCount: Int, before limit: Int) throws -> UInt64 {
        switch byteCount {
        case 0: return 0
        case 1: return UInt64(try u8(offset, before: limit))
        case 2: return UInt64(try u16(offset, before: limit))
        case 4: return UInt64(try u32(offset, before: limit))
        case 8: return try u64(offset, before: limit)
        default: throw ISOBMFFParseError(description: "a field is \(byteCount) bytes wide")
        }
    }

    /// The box starting at `offset`, which must end by `limit`.
    ///
    /// Handles 32-bit sizes, 64-bit sizes (size 1, then a 64-bit `largesize`) and size 0 (the box
    /// runs to `limit`); `uuid` boxes keep their 16-byte user type in the payload.
    func box(at offset: Int, before limit: Int) throws -> ISOBMFFBox {
        let size32 = try u32(offset, before: limit)
        let type = try fourCC(offset + 4, before: limit)
        var headerSize = 8
        let size: Int
        switch size32 {
        case 0:
            size = limit - offset
        case 1:
            let large = try u64(offset + 8, before: limit)
            headerSize = 16
            guard large <= UInt64(Int.max) else {
                throw ISOBMFFParseError(description: "the '\(type)' box claims \(large) bytes")
            }
            size = Int(large)
        default:
            size = Int(size32)
        }
        guard size >= headerSize else {
            throw ISOBMFFParseError(description: "the '\(type)' box is \(size) bytes, shorter than its header")
        }
        try require(offset, size, before: limit, "the '\(type)' box (\(size) bytes)")
        return ISOBMFFBox(type: type, start: offset, end: offset + size, payloadStart: offset + headerSize)
    }

    /// The boxes one after another in `range`, which they must fill exactly (trailing bytes too few for
    /// a box header are ignored).
    func boxes(in range: Range<Int>) throws -> [ISOBMFFBox] {
        var result: [ISOBMFFBox] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= 8 {
            let box = try box(at: offset, before: range.upperBound)
            result.append(box)
            offset = box.end
        }
        return result
    }

    /// The boxes from `start` to `end` of `parent`, as ``boxes(in:)``; throws when a header field of
    /// `parent` put `start` past `end` (a box too short for its own fields).
    func boxes(from start: Int, to end: Int, in parent: ISOBMFFBox) throws -> [ISOBMFFBox] {
        guard start <= end else {
            throw ISOBMFFParseError(description: "the '\(parent.type)' box is too short for its header fields")
        }
        return try boxes(in: start..<end)
    }

    /// The first child box of `type` in `range`, or `nil`.
    func firstBox(_ type: FourCC, in range: Range<Int>) throws -> ISOBMFFBox? {
        try boxes(in: range).first { $0.type == type }
    }
}

extension FourCC {
    static let ftyp = FourCC("ftyp"), meta = FourCC("meta"), hdlr = FourCC("hdlr"), pitm = FourCC("pitm")
    static let iinf = FourCC("iinf"), infe = FourCC("infe"), iprp = FourCC("iprp"), ipco = FourCC("ipco")
    static let ipma = FourCC("ipma"), ispe = FourCC("ispe"), irot = FourCC("irot"), imir = FourCC("imir")
    static let pixi = FourCC("pixi"), clap = FourCC("clap"), auxC = FourCC("auxC"), iloc = FourCC("iloc")
    static let idat = FourCC("idat"), moov = FourCC("moov"), trak = FourCC("trak"), mdia = FourCC("mdia")
    static let minf = FourCC("minf"), stbl = FourCC("stbl"), stsd = FourCC("stsd"), stsz = FourCC("stsz")
    static let stz2 = FourCC("stz2")
    static let av01 = FourCC("av01"), hvc1 = FourCC("hvc1"), hev1 = FourCC("hev1"), grid = FourCC("grid")
    static let pict = FourCC("pict"), vide = FourCC("vide")
}
