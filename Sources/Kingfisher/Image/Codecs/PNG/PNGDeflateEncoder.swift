import CLibDeflate
import Foundation

/// Writes 8-bit RGB or RGBA rows as a PNG: each row filtered as libpng's adaptive choice would,
/// all rows deflated in one call by libdeflate, one `IDAT` chunk.
///
/// The file is `IHDR`, `sRGB` (perceptual intent, as libpng's simplified API writes for 8-bit
/// colour), `IDAT` and `IEND`, with no time stamp: the same pixels give the same bytes.
enum PNGDeflateEncoder {
    /// libdeflate's level: on photographs it compresses about as well as zlib's default level 6,
    /// which libpng and Pillow use, in a fraction of the time.
    static let compressionLevel: Int32 = 4

    /// The PNG of `height` rows of `width` pixels of `channels` (3 or 4) packed bytes each.
    static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, channels: Int) throws -> Data {
        let (rowLength, rowOverflow) = width.multipliedReportingOverflow(by: channels)
        let (filteredCount, filteredOverflow) = (rowLength + 1).multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, channels == 3 || channels == 4, !rowOverflow, !filteredOverflow,
              width <= Int(Int32.max), height <= Int(Int32.max), pixels.count >= rowLength * height,
              let source = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else {
            throw PNGCodec.encodingError("\(width)×\(height) pixels of \(channels) bytes cannot be written as PNG")
        }
        let filtered = UnsafeMutablePointer<UInt8>.allocate(capacity: filteredCount)
        defer { filtered.deallocate() }
        // The row above the first is zeros; `scratch` holds each candidate filter's bytes.
        let zeros = UnsafeMutablePointer<UInt8>.allocate(capacity: rowLength * 2)
        defer { zeros.deallocate() }
        zeros.initialize(repeating: 0, count: rowLength)
        let scratch = zeros + rowLength
        for y in 0..<height {
            let row = source + y * rowLength
            PNGRowFilters.filterAdaptively(
                row: row, above: y == 0 ? UnsafePointer(zeros) : row - rowLength, isFirstRow: y == 0, count: rowLength,
                bpp: channels, scratch: scratch, output: filtered + y * (rowLength + 1))
        }
        let compressed = try deflate(UnsafeRawBufferPointer(start: filtered, count: filteredCount))

        var file = Data(capacity: compressed.count + 8 + 25 + 13 + 12 + 12)
        file.append(contentsOf: PNGChunkFormat.signature)
        let header = PNGChunkFormat.bigEndian32(width) + PNGChunkFormat.bigEndian32(height) + [8, channels == 4 ? 6 : 2, 0, 0, 0]
        PNGChunkFormat.appendChunk("IHDR", header, to: &file)
        PNGChunkFormat.appendChunk("sRGB", [0], to: &file)
        PNGChunkFormat.appendChunk("IDAT", compressed, to: &file)
        PNGChunkFormat.appendChunk("IEND", [UInt8](), to: &file)
        return file
    }

    /// `bytes` as a zlib stream at ``compressionLevel``.
    private static func deflate(_ bytes: UnsafeRawBufferPointer) throws -> Data {
        guard let compressor = libdeflate_alloc_compressor(compressionLevel) else {
            throw PNGCodec.encodingError("libdeflate could not make a compressor (out of memory)")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_zlib_compress_bound(compressor, bytes.count)
        var output = Data(count: bound)
        let written = output.withUnsafeMutableBytes { target in
            libdeflate_zlib_compress(compressor, bytes.baseAddress, bytes.count, target.baseAddress, bound)
        }
        // The bound is libdeflate's own worst case, so a zero here means a fault, not a full buffer.
        guard written > 0 else { throw PNGCodec.encodingError("libdeflate could not compress the rows") }
        output.count = written
        return output
    }
}
