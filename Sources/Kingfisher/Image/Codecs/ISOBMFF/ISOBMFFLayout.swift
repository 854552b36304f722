import Foundation

/// The parts of a HEIF/AVIF file the header probe reads: `ftyp`, `meta` and an image sequence's
/// `moov`, found among the top-level boxes.
struct ISOBMFFLayout: Sendable {
    /// The `ftyp` box.
    let fileType: ISOBMFFFileType
    /// The `meta` box, when there is one.
    let meta: ISOBMFFMeta?
    /// The first picture or video track, when there is a `moov`.
    let track: ISOBMFFTrack?
    /// The primary item's grid descriptor, when the primary item is a grid that `iloc` places.
    let primaryGrid: ISOBMFFGrid?

    /// Reads the top-level boxes of `reader`'s bytes.
    ///
    /// A box that cannot be read ends the walk: a truncated file's trailing `mdat` does not matter
    /// once `meta` has been read. A damaged `meta` or `moov` throws.
    init(_ reader: ISOBMFFReader) throws {
        fileType = try ISOBMFFFileType(reader)
        var meta: ISOBMFFMeta?
        var track: ISOBMFFTrack?
        var offset = 0
        while reader.bytes.count - offset >= 8, meta == nil || track == nil {
            guard let box = try? reader.box(at: offset, before: reader.bytes.count) else { break }
            if box.type == .meta, meta == nil {
                meta = try ISOBMFFMeta(box, reader: reader)
            } else if box.type == .moov, track == nil {
                track = try ISOBMFFTrack.firstVisualTrack(in: box, reader: reader)
            }
            offset = box.end
        }
        self.meta = meta
        self.track = track
        if let meta, let id = meta.primaryItemID, meta.itemTypes[id] == .grid {
            primaryGrid = try ISOBMFFGrid.descriptor(of: id, meta: meta, reader: reader)
        } else {
            primaryGrid = nil
        }
    }

    /// The primary item's type (`av01`, `hvc1`, `grid`, …), or `nil`.
    var primaryItemType: FourCC? {
        guard let meta, let id = meta.primaryItemID else { return nil }
        return meta.itemTypes[id]
    }

    /// How the image is coded: the primary item's type, or for a grid the type of the items it
    /// tiles, else the sequence track's sample entry.
    var coding: FourCC? {
        if let type = primaryItemType {
            if type != .grid { return type }
            let tileTypes = Set(meta?.itemTypes.values.filter { $0 != .grid } ?? [])
            if tileTypes.count == 1, let only = tileTypes.first { return only }
        }
        return track?.coding
    }

    /// What the header says, for a file already known to be `format`.
    func header(format: ImageFormat) throws -> ImageHeader {
        let isSequence = fileType.allBrands.contains(where: ISOBMFFFileType.sequenceBrands.contains)
        let frames = isSequence ? (track?.sampleCount ?? 1) : 1
        let hasAlpha = meta?.properties.contains(where: \.isAlpha) ?? false
        if let meta, let id = meta.primaryItemID {
            if meta.references?.loops(from: id) == true {
                throw ISOBMFFParseError(description: "the primary item's tile and auxiliary-image references loop")
            }
            var width: Int?
            var height: Int?
            var declared = 0
            var quarterTurns = 0
            var mirrorAxis: Int?
            for property in meta.properties(of: id) {
                switch property {
                case let .spatialExtent(w, h):
                    (width, height) = (w, h)
                    // Two 32-bit sides can overflow even a 64-bit product.
                    let product = w.multipliedReportingOverflow(by: h)
                    declared = product.overflow ? .max : product.partialValue
                case let .cleanAperture(w, h) where w > 0 && h > 0: (width, height) = (w, h)
                case let .rotation(turns): quarterTurns = turns
                case let .mirror(axis): mirrorAxis = axis
                default: break
                }
            }
            guard let width, let height else {
                throw ISOBMFFParseError(description: "the primary item \(id) has no 'ispe' size property")
            }
            // A decoder allocates what the grid's own descriptor says, so the limits must see it.
            if let grid = primaryGrid,
               grid.width > 65535 || grid.height > 65535 || grid.width * grid.height > declared {
                throw ISOBMFFParseError(description: "the grid's output is \(grid.width)×\(grid.height) pixels, "
                    + "larger than its 'ispe' declares")
            }
            return ImageHeader(format: format, pixelWidth: width, pixelHeight: height, frameCount: frames,
                               orientation: imageOrientation(quarterTurns: quarterTurns, mirrorAxis: mirrorAxis),
                               hasAlpha: hasAlpha)
        }
        if let track {
            return ImageHeader(format: format, pixelWidth: track.width, pixelHeight: track.height,
                               frameCount: track.sampleCount, hasAlpha: hasAlpha)
        }
        throw ISOBMFFParseError(description: "there is neither a primary image item nor an image sequence track")
    }
}
