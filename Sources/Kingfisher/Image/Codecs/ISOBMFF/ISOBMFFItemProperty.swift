import Foundation

/// One item property from an `ipco` box that the header probe uses.
enum ISOBMFFItemProperty: Sendable, Equatable {
    /// `ispe`: the image's width and height as coded.
    case spatialExtent(width: Int, height: Int)
    /// `irot`: anticlockwise rotation in quarter turns (0...3).
    case rotation(quarterTurns: Int)
    /// `imir`: the mirroring mode, as ISO/IEC 23008-12:2022 and libheif/libavif read it: 0 swaps top
    /// and bottom (a mirror about a horizontal axis), 1 swaps left and right.
    case mirror(axis: Int)
    /// `clap`: the clean aperture's width and height, rounded down.
    case cleanAperture(width: Int, height: Int)
    /// `pixi`: the bit depth of each channel.
    case pixelInformation(bitsPerChannel: [Int])
    /// `auxC`: an auxiliary image type, such as the alpha URN.
    case auxiliaryType(String)
    /// Any other property (the codec configuration, colour information, …).
    case other(FourCC)

    /// Reads the property box `box`.
    init(_ box: ISOBMFFBox, reader: ISOBMFFReader) throws {
        let start = box.payloadStart
        let end = box.end
        switch box.type {
        case .ispe:
            // Full box: version and flags, then two 32-bit sizes.
            let width = try reader.u32(start + 4, before: end)
            let height = try reader.u32(start + 8, before: end)
            self = .spatialExtent(width: Int(width), height: Int(height))
        case .irot:
            self = .rotation(quarterTurns: Int(try reader.u8(start, before: end) & 0x03))
        case .imir:
            self = .mirror(axis: Int(try reader.u8(start, before: end) & 0x01))
        case .clap:
            let widthN = try reader.u32(start, before: end), widthD = try reader.u32(start + 4, before: end)
            let heightN = try reader.u32(start + 8, before: end), heightD = try reader.u32(start + 12, before: end)
            guard widthD > 0, heightD > 0 else {
                throw ISOBMFFParseError(description: "the clean aperture has a zero denominator")
            }
            self = .cleanAperture(width: Int(widthN / widthD), height: Int(heightN / heightD))
        case .pixi:
            let channels = Int(try reader.u8(start + 4, before: end))
            var bits: [Int] = []
            for index in 0..<channels { bits.append(Int(try reader.u8(start + 5 + index, before: end))) }
            self = .pixelInformation(bitsPerChannel: bits)
        case .auxC:
            // Full box, then a NUL-terminated URN (and optional subtype bytes).
            var offset = start + 4
            var urn: [UInt8] = []
            while offset < end, let byte = try? reader.u8(offset, before: end), byte != 0 {
                urn.append(byte)
                offset += 1
            }
            self = .auxiliaryType(String(decoding: urn, as: UTF8.self))
        default:
            self = .other(box.type)
        }
    }

    /// True for an `auxC` that marks an alpha plane.
    var isAlpha: Bool {
        guard case .auxiliaryType(let urn) = self else { return false }
        return urn == "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha" || urn == "urn:mpeg:hevc:2015:auxid:1"
    }
}

/// The library's orientation for a HEIF `irot` (anticlockwise quarter turns, applied first) followed
/// by an `imir` (mode 0: top and bottom swap; 1: left and right swap), as HEIF orders them.
func imageOrientation(quarterTurns: Int, mirrorAxis: Int?) -> ImageOrientation {
    // Rows: quarter turns 0...3. Columns: no mirror, left-right swap, top-bottom swap.
    let table: [[ImageOrientation]] = [
        [.up, .upMirrored, .downMirrored],
        [.left, .rightMirrored, .leftMirrored],
        [.down, .downMirrored, .upMirrored],
        [.right, .leftMirrored, .rightMirrored],
    ]
    let column = mirrorAxis.map { $0 == 0 ? 2 : 1 } ?? 0
    return table[quarterTurns & 0x03][column]
}
