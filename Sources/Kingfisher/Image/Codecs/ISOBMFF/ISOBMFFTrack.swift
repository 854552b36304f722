import Foundation

/// The first picture or video track of a `moov` box: what an image sequence (`avis`, `msf1`) holds.
struct ISOBMFFTrack: Sendable {
    /// The sample entry's coding (`av01`, `hvc1`, …).
    let coding: FourCC
    /// Width from the visual sample entry.
    let width: Int
    /// Height from the visual sample entry.
    let height: Int
    /// Samples (frames) from `stsz` or `stz2`.
    let sampleCount: Int

    /// The first track of `moov` whose handler is `pict` or `vide`, or `nil` when there is none.
    static func firstVisualTrack(in moov: ISOBMFFBox, reader: ISOBMFFReader) throws -> ISOBMFFTrack? {
        for trak in try reader.boxes(in: moov.payload) where trak.type == .trak {
            guard let mdia = try reader.firstBox(.mdia, in: trak.payload),
                  let hdlr = try reader.firstBox(.hdlr, in: mdia.payload) else { continue }
            // Full box, pre_defined (32 bits), then handler_type.
            let handler = try reader.fourCC(hdlr.payloadStart + 8, before: hdlr.end)
            guard handler == .pict || handler == .vide,
                  let minf = try reader.firstBox(.minf, in: mdia.payload),
                  let stbl = try reader.firstBox(.stbl, in: minf.payload),
                  let stsd = try reader.firstBox(.stsd, in: stbl.payload) else { continue }
            // Full box, entry_count, then the first sample entry: 6 reserved bytes, the data
            // reference index, 16 bytes of pre_defined/reserved, width and height (16 bits each).
            let entry = try reader.box(at: stsd.payloadStart + 8, before: stsd.end)
            let width = Int(try reader.u16(entry.payloadStart + 24, before: entry.end))
            let height = Int(try reader.u16(entry.payloadStart + 26, before: entry.end))
            var samples = 1
            for box in try reader.boxes(in: stbl.payload) {
                if box.type == .stsz {
                    // Full box, sample_size, sample_count.
                    samples = Int(try reader.u32(box.payloadStart + 8, before: box.end))
                } else if box.type == .stz2 {
                    // Full box, 24 reserved bits and field_size, sample_count.
                    samples = Int(try reader.u32(box.payloadStart + 8, before: box.end))
                }
            }
            return ISOBMFFTrack(coding: entry.type, width: width, height: height, sampleCount: max(1, samples))
        }
        return nil
    }
}
