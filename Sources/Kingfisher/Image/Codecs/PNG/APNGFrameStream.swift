import Foundation

/// Builds one APNG frame as a standalone PNG in memory, for libpng (Debian's has no APNG support)
/// to decode through the ordinary PNG path: the signature, an IHDR with the frame's size, the
/// chunks all frames share (PLTE, tRNS, gAMA…), one IDAT per piece of the frame's zlib stream, IEND.
enum APNGFrameStream {
    static func build(_ frame: APNGFrameInfo, of structure: PNGStructure, in bytes: UnsafeRawBufferPointer) -> Data {
        var output = Data(PNGCRC.signature)
        var header = structure.header
        header.replaceSubrange(0..<8, with: bigEndian32(frame.width) + bigEndian32(frame.height))
        appendChunk("IHDR", header[...], to: &output)
        for chunk in structure.sharedChunks {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[chunk]))
        }
        for range in frame.dataRanges {
            appendChunk("IDAT", UnsafeRawBufferPointer(rebasing: bytes[range]), to: &output)
        }
        appendChunk("IEND", [UInt8]()[...], to: &output)
        return output
    }

    private static func appendChunk<Bytes: Collection>(_ type: String, _ body: Bytes, to output: inout Data) where Bytes.Element == UInt8 {
        let typeBytes = Array(type.utf8)
        output.append(contentsOf: bigEndian32(body.count))
        output.append(contentsOf: typeBytes)
        output.append(contentsOf: body)
        var crc = PNGCRC.update(PNGCRC.initial, typeBytes)
        crc = PNGCRC.update(crc, body)
        output.append(contentsOf: bigEndian32(Int(PNGCRC.finish(crc))))
    }

    private static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

/// The CRC-32 that PNG chunks carry (ISO 3309, reflected, polynomial 0xEDB88320).
enum PNGCRC {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let initial: UInt32 = 0xFFFF_FFFF

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    static func update<Bytes: Sequence>(_ crc: UInt32, _ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        table.withUnsafeBufferPointer { table in
            var crc = crc
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
            return crc
        }
    }

    static func finish(_ crc: UInt32) -> UInt32 { crc ^ 0xFFFF_FFFF }

    /// The CRC of `bytes` (a chunk's type and data).
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        finish(update(initial, bytes))
    }
}
