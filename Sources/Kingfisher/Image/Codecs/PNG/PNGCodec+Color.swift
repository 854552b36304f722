import Foundation
import KingfisherCShims

extension PNGCodec {
    /// The ICC profile of an `iCCP` chunk of `data`, decompressed and checked by libpng; `nil` when
    /// there is none or libpng refuses it (then the pixels are taken as sRGB, as an `sRGB` chunk
    /// or no colour information says).
    ///
    /// A walk over the chunk headers before the first IDAT comes first, so a file without `iCCP`
    /// costs no second libpng read.
    static func embeddedProfile(_ data: Data) -> EmbeddedColorProfile? {
        let hasProfile = data.withUnsafeBytes { bytes -> Bool in
            var offset = 8
            while offset + 8 <= bytes.count {
                let length = PNGChunkFormat.u32(bytes, offset)
                let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: Unicode.ASCII.self)
                if type == "iCCP" { return true }
                if type == "IDAT" { return false }
                offset += 12 + length
            }
            return false
        }
        guard hasProfile else { return nil }
        return iccProfile(data)
    }

    /// The ICC profile of `data`'s `iCCP` chunk, decompressed and checked by libpng; `nil` when
    /// libpng finds none or refuses it.
    static func iccProfile(_ data: Data) -> EmbeddedColorProfile? {
        data.withUnsafeBytes { bytes -> EmbeddedColorProfile? in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var profile: UnsafeMutablePointer<UInt8>?
            var size = 0
            guard kf_png_read_icc(base, bytes.count, &profile, &size) != 0, let profile else { return nil }
            defer { kf_png_free(profile) }
            return .icc(Data(bytes: profile, count: size))
        }
    }
}
