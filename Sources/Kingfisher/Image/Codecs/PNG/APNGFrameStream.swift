import Foundation

/// Builds one APNG frame as a standalone PNG in memory, for libpng (Debian's has no APNG support)
/// to decode through the ordinary PNG path: the signature, an IHDR with the frame's size, the
/// chunks all frames share (PLTE, tRNS, gAMA…), one IDAT per piece of the frame's zlib stream, IEND.
enum APNGFrameStream {
    static func build(_ frame: APNGFrameInfo, of structure: PNGStructure, in bytes: UnsafeRawBufferPointer) -> Data {
        var output = Data(PNGChunkFormat.signature)
        var header = structure.header
        header.replaceSubrange(0..<8, with: PNGChunkFormat.bigEndian32(frame.width) + PNGChunkFormat.bigEndian32(frame.height))
        PNGChunkFormat.appendChunk("IHDR", header[...], to: &output)
        for chunk in structure.sharedChunks {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[chunk]))
        }
        for range in frame.dataRanges {
            PNGChunkFormat.appendChunk("IDAT", UnsafeRawBufferPointer(rebasing: bytes[range]), to: &output)
        }
        PNGChunkFormat.appendChunk("IEND", [UInt8](), to: &output)
        return output
    }
}
