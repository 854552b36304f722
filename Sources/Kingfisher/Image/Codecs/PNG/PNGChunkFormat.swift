import CLibDeflate
import Foundation

/// The framing every PNG reader and writer here shares: the signature, big-endian lengths, and the CRC-32
/// (ISO 3309) each chunk carries over its type and data, computed by libdeflate.
enum PNGChunkFormat {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The CRC of `bytes` (a chunk's type and data).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(libdeflate_crc32(0, bytes.baseAddress, bytes.count))
    }

    /// Appends one chunk to `output`: the length of `body`, `type`, `body` and their CRC.
    static func appendChunk<Bytes: Collection>(_ type: String, _ body: Bytes, to output: inout Data) where Bytes.Element == UInt8 {
        output.append(contentsOf: bigEndian32(body.count))
        let covered = output.count
        output.append(contentsOf: type.utf8)
        output.append(contentsOf: body)
        let crc = output.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[covered...])) }
        output.append(contentsOf: bigEndian32(Int(crc)))
    }

    /// The big-endian 32-bit value at `offset`; the caller has checked the bounds.
    static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// `value`'s low 32 bits, most significant byte first.
    static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
