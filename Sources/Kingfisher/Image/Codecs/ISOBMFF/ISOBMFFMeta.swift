import Foundation

/// What the probe needs from a HEIF `meta` box: the primary item, each item's type, and the item
/// properties with their associations.
struct ISOBMFFMeta: Sendable {
    /// The `pitm` item ID; `nil` when there is no `pitm`.
    var primaryItemID: UInt32?
    /// Item types from `iinf`/`infe` (version 2 and later), by item ID.
    var itemTypes: [UInt32: FourCC] = [:]
    /// The `ipco` properties, in order (`ipma` indices are 1-based into this).
    var properties: [ISOBMFFItemProperty] = []
    /// Property indices (1-based, as in `ipma`) associated with each item ID, in `ipma` order.
    var associations: [UInt32: [Int]] = [:]
    /// The `iloc` box, read only when an item's bytes are needed (a grid's descriptor).
    var itemLocationBox: ISOBMFFBox?
    /// The `idat` box, whose payload holds items stored in the `meta` box itself.
    var itemDataBox: ISOBMFFBox?
    /// The items' `dimg` and `auxl` references.
    var references: ISOBMFFItemReferences?

    /// Reads the `meta` box `box`.
    init(_ box: ISOBMFFBox, reader: ISOBMFFReader) throws {
        // HEIF's meta is a full box; QuickTime's is a plain one. Tell them apart by whether a box
        // type follows the first four bytes.
        var childrenStart = box.payloadStart + 4
        if let maybeType = try? reader.fourCC(box.payloadStart + 4, before: box.end), maybeType == .hdlr {
            childrenStart = box.payloadStart
        }
        for child in try reader.boxes(from: childrenStart, to: box.end, in: box) {
            switch child.type {
            case .pitm:
                let version = try reader.u8(child.payloadStart, before: child.end)
                primaryItemID = version == 0
                    ? UInt32(try reader.u16(child.payloadStart + 4, before: child.end))
                    : try reader.u32(child.payloadStart + 4, before: child.end)
            case .iinf:
                try readItemInfo(child, reader: reader)
            case .iloc:
                itemLocationBox = child
            case .idat:
                itemDataBox = child
            case FourCC("iref"):
                references = try ISOBMFFItemReferences(child, reader: reader)
            case .iprp:
                for grandchild in try reader.boxes(in: child.payload) {
                    if grandchild.type == .ipco {
                        properties = try reader.boxes(in: grandchild.payload).map { try ISOBMFFItemProperty($0, reader: reader) }
                    } else if grandchild.type == .ipma {
                        try readAssociations(grandchild, reader: reader)
                    }
                }
            default:
                break
            }
        }
    }

    /// `iinf`: a full box, an entry count (16 or 32 bits), then `infe` boxes.
    private mutating func readItemInfo(_ box: ISOBMFFBox, reader: ISOBMFFReader) throws {
        let version = try reader.u8(box.payloadStart, before: box.end)
        let childrenStart = box.payloadStart + 4 + (version == 0 ? 2 : 4)
        for entry in try reader.boxes(from: childrenStart, to: box.end, in: box) where entry.type == .infe {
            let entryVersion = try reader.u8(entry.payloadStart, before: entry.end)
            guard entryVersion >= 2 else { continue }
            var offset = entry.payloadStart + 4
            let itemID: UInt32
            if entryVersion == 2 {
                itemID = UInt32(try reader.u16(offset, before: entry.end))
                offset += 2
            } else {
                itemID = try reader.u32(offset, before: entry.end)
                offset += 4
            }
            offset += 2 // item_protection_index
            itemTypes[itemID] = try reader.fourCC(offset, before: entry.end)
        }
    }

    /// `ipma`: for each item, its property indices (7 or 15 bits after the essential flag).
    private mutating func readAssociations(_ box: ISOBMFFBox, reader: ISOBMFFReader) throws {
        let version = try reader.u8(box.payloadStart, before: box.end)
        let wideIndices = try reader.u8(box.payloadStart + 3, before: box.end) & 0x01 != 0
        let entryCount = try reader.u32(box.payloadStart + 4, before: box.end)
        var offset = box.payloadStart + 8
        var entry: UInt32 = 0
        while entry < entryCount {
            let itemID: UInt32
            if version < 1 {
                itemID = UInt32(try reader.u16(offset, before: box.end))
                offset += 2
            } else {
                itemID = try reader.u32(offset, before: box.end)
                offset += 4
            }
            let count = Int(try reader.u8(offset, before: box.end))
            offset += 1
            var indices: [Int] = []
            for _ in 0..<count {
                if wideIndices {
                    indices.append(Int(try reader.u16(offset, before: box.end) & 0x7FFF))
                    offset += 2
                } else {
                    indices.append(Int(try reader.u8(offset, before: box.end) & 0x7F))
                    offset += 1
                }
            }
            associations[itemID, default: []].append(contentsOf: indices)
            entry += 1
        }
    }

    /// The properties associated with `itemID`, in association order; index 0 (none) and indices
    /// past `ipco` are skipped.
    func properties(of itemID: UInt32) -> [ISOBMFFItemProperty] {
        (associations[itemID] ?? []).compactMap { index in
            index >= 1 && index <= properties.count ? properties[index - 1] : nil
        }
    }
}
