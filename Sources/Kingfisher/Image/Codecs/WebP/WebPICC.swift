import Foundation

/// Reads the ICC profile of a WebP from its RIFF container (libwebp's decoder ignores it).
///
/// Only the extended format carries one: the first chunk must be `VP8X` with its ICC flag (bit 5 of
/// the flags byte) set, and the profile is then the body of the `ICCP` chunk. Every offset is
/// bounds-checked; anything missing or damaged gives `nil`, and the pixels are taken as sRGB.
enum WebPICC {
    static func profile(_ bytes: UnsafeRawBufferPointer) -> EmbeddedColorProfile? {
        guard bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)),
              UnsafeRawBufferPointer(rebasing: bytes[8..<16]).elementsEqual(Array("WEBPVP8X".utf8)),
              bytes[20] & 0x20 != 0
        else { return nil }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let start = offset + 8
            let end = start + size
            guard end <= bytes.count else { return nil }
            if UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]).elementsEqual(Array("ICCP".utf8)) {
                return size > 0 ? .icc(Data(bytes[start..<end])) : nil
            }
            // Chunks are padded to an even length.
            offset = end + (size & 1)
        }
        return nil
    }

    /// Converts one straight-alpha RGBA canvas copy to sRGB through `profile`, then premultiplies it:
    /// what an animation decoded in `MODE_RGBA` (because its profile needs converting) gets per frame.
    static func convertStraight(_ pixels: inout [UInt8], width: Int, height: Int, profile: EmbeddedColorProfile?,
                                options: ImageCreatingOptions) throws {
        try pixels.withUnsafeMutableBytes { raw in
            try ColorManagement.convertToSRGB(raw, width: width, height: height, from: profile, options: options)
            _ = PixelConversion.premultiply(raw)
        }
    }
}
