/// Builds disk-journal bytes the way the disk storage frames them (`KFJRNL\0\1`, then
/// `[u32 length][u32 CRC-32][payload]` little endian), so fuzzed payloads get past the checksum.
public struct JournalBytes {
    /// The bytes so far, starting with the journal header.
    public private(set) var bytes: [UInt8] = Array("KFJRNL".utf8) + [0, 1]

    /// An empty journal (the header only).
    public init() {}

    /// Appends `payload` in a frame with its true length and checksum.
    public mutating func appendFrame(_ payload: [UInt8]) {
        appendInteger(UInt32(truncatingIfNeeded: payload.count))
        appendInteger(Self.crc32(payload))
        bytes.append(contentsOf: payload)
    }

    /// Appends bytes as they are: a torn or foreign tail.
    public mutating func appendRaw<S: Sequence>(_ raw: S) where S.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Appends `value` little endian.
    public mutating func appendInteger<I: FixedWidthInteger>(_ value: I) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// CRC-32 (IEEE, reflected), written independently of the storage's.
    public static func crc32(_ data: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

/// Reads fuzz bytes front to back; past the end every read gives zeros.
public struct FuzzReader {
    private let bytes: [UInt8]
    private var offset = 0

    /// A reader over `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// The next `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return Array(bytes[min(offset, end)..<end])
    }

    /// The next eight bytes as a little-endian integer.
    public mutating func uint64() -> UInt64 {
        take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Everything not yet read.
    public mutating func rest() -> [UInt8] { take(bytes.count - offset) }
}
