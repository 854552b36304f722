import Foundation

/// What decoding each item needs from the `iref` box: the tiles a `grid` names (`dimg`), and the
/// auxiliary images (alpha, depth) that name it as their master (`auxl`).
///
/// libheif 1.15 follows these references without remembering where it has been, so a file whose
/// references loop (a grid whose tile's alpha is that grid) makes it wait on itself forever; the
/// probe refuses such a file before libheif sees it.
struct ISOBMFFItemReferences: Sendable {
    /// For each item, the items its decoding reads.
    private(set) var needs: [UInt32: [UInt32]] = [:]

    /// Reads the `iref` box `box`.
    init(_ box: ISOBMFFBox, reader: ISOBMFFReader) throws {
        let version = try reader.u8(box.payloadStart, before: box.end)
        let idSize = version == 0 ? 2 : 4
        func id(_ offset: Int, _ limit: Int) throws -> UInt32 {
            idSize == 2 ? UInt32(try reader.u16(offset, before: limit)) : try reader.u32(offset, before: limit)
        }
        for reference in try reader.boxes(from: box.payloadStart + 4, to: box.end, in: box)
        where reference.type == FourCC("dimg") || reference.type == FourCC("auxl") {
            let from = try id(reference.payloadStart, reference.end)
            let count = Int(try reader.u16(reference.payloadStart + idSize, before: reference.end))
            var offset = reference.payloadStart + idSize + 2
            for _ in 0..<count {
                let to = try id(offset, reference.end)
                offset += idSize
                if reference.type == FourCC("dimg") {
                    needs[from, default: []].append(to)
                } else {
                    needs[to, default: []].append(from)
                }
            }
        }
    }

    /// Whether decoding `item` would come back to an item already on its way.
    func loops(from item: UInt32) -> Bool {
        var state: [UInt32: Bool] = [:] // false: on the current path; true: finished
        var stack: [(item: UInt32, next: Int)] = [(item, 0)]
        state[item] = false
        while let top = stack.last {
            let children = needs[top.item] ?? []
            if top.next < children.count {
                stack[stack.count - 1].next += 1
                let child = children[top.next]
                switch state[child] {
                case .some(false): return true
                case .some(true): continue
                case .none:
                    state[child] = false
                    stack.append((child, 0))
                }
            } else {
                state[top.item] = true
                stack.removeLast()
            }
        }
        return false
    }
}
