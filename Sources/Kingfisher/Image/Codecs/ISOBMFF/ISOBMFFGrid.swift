import Foundation

/// The output size a HEIF `grid` item declares in its own data, which is what a decoder allocates
/// for it, whatever the item's `ispe` says.
///
/// The item's bytes are found through `iloc`: in the file (construction method 0) or in the `meta`
/// box's `idat` (method 1). Only the descriptor's first 12 bytes are read: version, flags, rows and
/// columns minus one, then the output width and height (16 bits each, or 32 when flag bit 0 is set).
struct ISOBMFFGrid: Sendable {
    /// The output width in pixels.
    let width: Int
    /// The output height in pixels.
    let height: Int

    /// Reads the descriptor of grid item `itemID` of `meta`; `nil` when `iloc` does not place it.
    static func descriptor(of itemID: UInt32, meta: ISOBMFFMeta, reader: ISOBMFFReader) throws -> ISOBMFFGrid? {
        guard let iloc = meta.itemLocationBox else { return nil }
        guard let location = try ISOBMFFItemLocation.find(itemID, in: iloc, reader: reader) else { return nil }
        let base: Int
        let limit: Int
        switch location.constructionMethod {
        case 0:
            (base, limit) = (0, reader.bytes.count)
        case 1:
            guard let idat = meta.itemDataBox else {
                throw ISOBMFFParseError(description: "the grid item's data is in an 'idat' box that is missing")
            }
            (base, limit) = (idat.payloadStart, idat.end)
        default:
            return nil
        }
        var bytes: [UInt8] = []
        for extent in location.extents where bytes.count < 12 {
            let start = base.addingReportingOverflow(location.baseOffset)
            let offset = start.partialValue.addingReportingOverflow(extent.offset)
            guard !start.overflow, !offset.overflow else {
                throw ISOBMFFParseError(description: "the grid item's location overflows")
            }
            let count = min(extent.length == 0 ? limit - offset.partialValue : extent.length, 12 - bytes.count)
            try reader.require(offset.partialValue, count, before: limit, "the grid item's data")
            bytes += reader.bytes[offset.partialValue..<(offset.partialValue + count)]
        }
        guard bytes.count >= 8 else {
            throw ISOBMFFParseError(description: "the grid item's descriptor is \(bytes.count) bytes, too short")
        }
        let wide = bytes[1] & 0x01 != 0
        guard !wide || bytes.count >= 12 else {
            throw ISOBMFFParseError(description: "the grid item's descriptor is \(bytes.count) bytes, too short")
        }
        func field(_ index: Int) -> Int {
            wide ? bytes[(4 + index * 4)..<(8 + index * 4)].reduce(0) { $0 << 8 | Int($1) }
                 : bytes[(4 + index * 2)..<(6 + index * 2)].reduce(0) { $0 << 8 | Int($1) }
        }
        return ISOBMFFGrid(width: field(0), height: field(1))
    }
}

/// One item's entry in `iloc`: where its bytes are.
struct ISOBMFFItemLocation: Sendable {
    /// 0: offsets in the file; 1: offsets in `idat`; 2: from other items (not read here).
    let constructionMethod: Int
    /// Added to every extent's offset.
    let baseOffset: Int
    /// Each extent's offset and length (0: to the end).
    let extents: [(offset: Int, length: Int)]

    /// The entry for `itemID` in the `iloc` box `box`, or `nil` when there is none.
    static func find(_ itemID: UInt32, in box: ISOBMFFBox, reader: ISOBMFFReader) throws -> ISOBMFFItemLocation? {
        let end = box.end
        var offset = box.payloadStart
        let version = try reader.u8(offset, before: end)
        let sizes = try reader.u8(offset + 4, before: end)
        let moreSizes = try reader.u8(offset + 5, before: end)
        let (offsetSize, lengthSize) = (Int(sizes >> 4), Int(sizes & 0x0F))
        let baseOffsetSize = Int(moreSizes >> 4)
        let indexSize = version == 1 || version == 2 ? Int(moreSizes & 0x0F) : 0
        offset += 6
        func sized(_ size: Int) throws -> Int {
            defer { offset += size }
            switch size {
            case 0: return 0
            case 4: return Int(try reader.u32(offset, before: end))
            case 8:
                let value = try reader.u64(offset, before: end)
                guard value <= UInt64(Int.max) else { throw ISOBMFFParseError(description: "an 'iloc' offset is too large") }
                return Int(value)
            default: throw ISOBMFFParseError(description: "an 'iloc' field is \(size) bytes wide")
            }
        }
        let itemCount = version < 2 ? Int(try reader.u16(offset, before: end)) : Int(try reader.u32(offset, before: end))
        offset += version < 2 ? 2 : 4
        for _ in 0..<itemCount {
            let id = version < 2 ? UInt32(try reader.u16(offset, before: end)) : try reader.u32(offset, before: end)
            offset += version < 2 ? 2 : 4
            var method = 0
            if version == 1 || version == 2 {
                method = Int(try reader.u16(offset, before: end) & 0x0F)
                offset += 2
            }
            offset += 2 // data_reference_index
            let base = try sized(baseOffsetSize)
            let extentCount = Int(try reader.u16(offset, before: end))
            offset += 2
            var extents: [(offset: Int, length: Int)] = []
            if indexSize + offsetSize + lengthSize == 0 {
                // Extents of no bytes each all say "offset 0, to the end": one stands for them all,
                // and 65,535 of them per item would cost time for nothing.
                if extentCount > 0 { extents.append((0, 0)) }
            } else {
                for _ in 0..<extentCount {
                    _ = try sized(indexSize)
                    let extentOffset = try sized(offsetSize)
                    extents.append((extentOffset, try sized(lengthSize)))
                }
            }
            if id == itemID { return ISOBMFFItemLocation(constructionMethod: method, baseOffset: base, extents: extents) }
        }
        return nil
    }
}
