import Foundation

/// A walk over the chunk headers of PNG data, before libpng sees it.
///
/// libpng allocates a buffer of the length a chunk header claims (up to 2 GB) before it reads the
/// chunk, and only then finds that the data ends sooner: a 100-byte file could make it take and
/// clear gigabytes. Decoding is from memory, so a chunk that runs past the end of the data is
/// always an error; it is reported here before libpng allocates anything. Image data (`IDAT`) is
/// streamed by libpng, not buffered, so a short last `IDAT` is left for libpng to report.
enum PNGChunkLayout {
    /// The first chunk, other than `IDAT`, whose claimed length runs past the end of `bytes` (PNG
    /// data from its signature on): its type and length. `nil` when every chunk up to `IEND` (or
    /// the end) fits.
    static func firstOverlongChunk(in bytes: UnsafeRawBufferPointer) -> (type: String, length: Int)? {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = PNGChunkFormat.u32(bytes, offset)
            let typeBytes = bytes[(offset + 4)..<(offset + 8)]
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: typeBytes), as: UTF8.self)
            let dataEnd = offset + 8 + length
            if type == "IDAT" {
                if dataEnd > bytes.count { return nil }
            } else if dataEnd > bytes.count {
                return (type, length)
            }
            if type == "IEND" { return nil }
            offset = dataEnd + 4
        }
        return nil
    }
}
