import Foundation

/// The parts of an ICC profile (ICC.1:2010, versions 2 and 4) colour management reads itself: the
/// header's colour spaces and, for a matrix/TRC profile, its colorants and tone curves.
///
/// Every offset is checked against the data; anything malformed gives `nil` (the caller then hands
/// the profile to lcms2, which decides for itself).
struct ICCProfileReader {
    /// The device colour space of the header (bytes 16–19), such as `RGB `, `CMYK` or `GRAY`.
    let colorSpace: String
    private let bytes: [UInt8]
    private let tags: [String: Range<Int>]

    /// Reads the header and tag table of `data`; `nil` when either is malformed.
    init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= 132, Self.tag(bytes, at: 36) == "acsp" else { return nil }
        let declared = Int(Self.uint32(bytes, at: 0))
        guard declared >= 132, declared <= bytes.count else { return nil }
        let count = Int(Self.uint32(bytes, at: 128))
        guard count <= (declared - 132) / 12 else { return nil }
        var tags: [String: Range<Int>] = [:]
        for index in 0..<count {
            let entry = 132 + index * 12
            let offset = Int(Self.uint32(bytes, at: entry + 4))
            let size = Int(Self.uint32(bytes, at: entry + 8))
            guard offset <= declared, size <= declared - offset else { return nil }
            tags[Self.tag(bytes, at: entry)] = offset..<(offset + size)
        }
        self.bytes = bytes
        self.tags = tags
        colorSpace = Self.tag(bytes, at: 16)
    }

    /// The profile as a matrix/TRC (or gray TRC) profile, when it is one that lcms2 would also treat
    /// as such: XYZ connection space and no lookup-table (`A2Bx`/`D2Bx`) tags.
    var matrixShaper: MatrixShaperProfile? {
        guard Self.tag(bytes, at: 20) == "XYZ ",
              !tags.keys.contains(where: { $0.hasPrefix("A2B") || $0.hasPrefix("D2B") })
        else { return nil }
        switch colorSpace {
        case "RGB ":
            guard let red = xyz("rXYZ"), let green = xyz("gXYZ"), let blue = xyz("bXYZ"),
                  let redCurve = curve("rTRC"), let greenCurve = curve("gTRC"), let blueCurve = curve("bTRC")
            else { return nil }
            return MatrixShaperProfile(colorants: [red, green, blue], curves: [redCurve, greenCurve, blueCurve])
        case "GRAY":
            // Gray pixels arrive as R = G = B: each channel goes through the gray curve onto sRGB's
            // own primary, which keeps gray gray (and leaves an RGB image mislabelled gray in colour).
            guard let gray = curve("kTRC") else { return nil }
            return MatrixShaperProfile(colorants: ColorMath.sRGBColorants, curves: [gray, gray, gray])
        default:
            return nil
        }
    }

    /// An `XYZType` tag's first value.
    private func xyz(_ signature: String) -> [Double]? {
        guard let range = tags[signature], range.count >= 20, Self.tag(bytes, at: range.lowerBound) == "XYZ " else {
            return nil
        }
        return (0..<3).map { Self.s15Fixed16(bytes, at: range.lowerBound + 8 + $0 * 4) }
    }

    /// A `curveType` or `parametricCurveType` tag as a tone curve.
    private func curve(_ signature: String) -> ToneCurve? {
        guard let range = tags[signature], range.count >= 12 else { return nil }
        let start = range.lowerBound
        switch Self.tag(bytes, at: start) {
        case "curv":
            let count = Int(Self.uint32(bytes, at: start + 8))
            guard count <= (range.count - 12) / 2 else { return nil }
            if count == 0 { return .gamma(1) }
            if count == 1 { return .gamma(Double(Self.uint16(bytes, at: start + 12)) / 256) }
            return .table((0..<count).map { Double(Self.uint16(bytes, at: start + 12 + $0 * 2)) / 65_535 })
        case "para":
            let function = Int(Self.uint16(bytes, at: start + 8))
            let counts = [1, 3, 4, 5, 7]
            guard function < counts.count, range.count >= 12 + counts[function] * 4 else { return nil }
            let values = (0..<counts[function]).map { Self.s15Fixed16(bytes, at: start + 12 + $0 * 4) }
            return ToneCurve(parametric: function, values)
        default:
            return nil
        }
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    private static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private static func s15Fixed16(_ bytes: [UInt8], at offset: Int) -> Double {
        Double(Int32(bitPattern: uint32(bytes, at: offset))) / 65_536
    }

    private static func tag(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<(offset + 4)], as: Unicode.ASCII.self)
    }
}
