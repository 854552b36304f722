import Foundation

/// Reads the EXIF orientation of a WebP from its RIFF container, without libwebp (which neither
/// reads nor applies it).
///
/// Only the extended format carries metadata: the first chunk must be `VP8X` with its EXIF flag
/// (bit 3 of the flags byte) set, and the orientation then comes from the `EXIF` chunk's TIFF
/// structure. Every offset is bounds-checked; anything missing or damaged gives `.up`.
enum WebPEXIF {
    static func orientation(_ bytes: UnsafeRawBufferPointer) -> ImageOrientation {
        guard bytes.count >= 30, bytes.starts(with: Array("RIFF".utf8)),
              UnsafeRawBufferPointer(rebasing: bytes[8..<16]).elementsEqual(Array("WEBPVP8X".utf8)),
              bytes[20] & 0x08 != 0
        else { return .up }
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let start = offset + 8
            let end = start + size
            guard end <= bytes.count else { return .up }
            if UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 4)]).elementsEqual(Array("EXIF".utf8)) {
                let body = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                // Some writers keep JPEG's "Exif\0\0" before the TIFF header.
                let tiff = body.starts(with: Array("Exif\0\0".utf8)) ? UnsafeRawBufferPointer(rebasing: body[6...]) : body
                return EXIFOrientation.read(tiff)
            }
            // Chunks are padded to an even length.
            offset = end + (size & 1)
        }
        return .up
    }
}
