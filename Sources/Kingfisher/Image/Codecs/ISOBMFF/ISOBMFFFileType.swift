import Foundation

/// The `ftyp` box: the major brand and the compatible brands, and what they say about the format.
struct ISOBMFFFileType: Sendable {
    /// The major brand.
    let majorBrand: FourCC
    /// The compatible brands, in file order.
    let compatibleBrands: [FourCC]

    /// Brands that name AVIF (still image or sequence).
    static let avifBrands: Set<FourCC> = [FourCC("avif"), FourCC("avis")]
    /// Brands that name HEIF images coded with HEVC (HEIC), stills or sequences.
    static let heicBrands: Set<FourCC> = [FourCC("heic"), FourCC("heix"), FourCC("hevc"), FourCC("heim"),
                                          FourCC("heis"), FourCC("hevm"), FourCC("hevs")]
    /// The codec-neutral HEIF brands: the format then follows from what the file holds.
    static let neutralBrands: Set<FourCC> = [FourCC("mif1"), FourCC("msf1")]
    /// Brands that promise an image sequence (a `moov` track).
    static let sequenceBrands: Set<FourCC> = [FourCC("avis"), FourCC("msf1"), FourCC("hevc"), FourCC("hevs")]

    /// Reads the `ftyp` box, which must be the first box of `bytes`.
    init(_ reader: ISOBMFFReader) throws {
        let box = try reader.box(at: 0, before: reader.bytes.count)
        guard box.type == .ftyp else {
            throw ISOBMFFParseError(description: "the first box is '\(box.type)', not 'ftyp'")
        }
        majorBrand = try reader.fourCC(box.payloadStart, before: box.end)
        var brands: [FourCC] = []
        var offset = box.payloadStart + 8
        while offset + 4 <= box.end {
            brands.append(try reader.fourCC(offset, before: box.end))
            offset += 4
        }
        compatibleBrands = brands
    }

    /// Every brand, the major one first.
    var allBrands: [FourCC] { [majorBrand] + compatibleBrands }

    /// The format the major brand names, else the compatible brands (AVIF before HEIC); `.unknown`
    /// when only codec-neutral brands (`mif1`, `msf1`) or none of ours are listed.
    var formatFromBrands: ImageFormat {
        if Self.avifBrands.contains(majorBrand) { return .AVIF }
        if Self.heicBrands.contains(majorBrand) { return .HEIC }
        if compatibleBrands.contains(where: Self.avifBrands.contains) { return .AVIF }
        if compatibleBrands.contains(where: Self.heicBrands.contains) { return .HEIC }
        return .unknown
    }

    /// True when some brand is one of the image brands this library recognises.
    var isImageFile: Bool {
        allBrands.contains { Self.avifBrands.contains($0) || Self.heicBrands.contains($0) || Self.neutralBrands.contains($0) }
    }

    /// The format of an ISO-BMFF file: from its major brand when that names one, else from the
    /// coding of its primary item (or of its image sequence track) when the layout can be read,
    /// else from the compatible brands.
    static func format(of bytes: UnsafeRawBufferPointer) -> ImageFormat {
        let reader = ISOBMFFReader(bytes)
        guard let fileType = try? ISOBMFFFileType(reader), fileType.isImageFile else { return .unknown }
        if avifBrands.contains(fileType.majorBrand) { return .AVIF }
        if heicBrands.contains(fileType.majorBrand) { return .HEIC }
        if let coding = try? ISOBMFFLayout(reader).coding, let format = ImageFormat(isobmffCoding: coding) {
            return format
        }
        return fileType.formatFromBrands
    }
}

extension ImageFormat {
    /// The format of an item or sample entry coded as `coding` (`av01` → AVIF, `hvc1`/`hev1` →
    /// HEIC), or `nil`.
    init?(isobmffCoding coding: FourCC) {
        switch coding {
        case .av01: self = .AVIF
        case .hvc1, .hev1: self = .HEIC
        default: return nil
        }
    }
}
