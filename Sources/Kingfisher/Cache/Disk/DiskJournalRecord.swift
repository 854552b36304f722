import Foundation

/// One change to the disk index, as written in the journal.
///
/// Records carry absolute values (sizes, dates), never deltas, so replaying a record twice or
/// replaying a whole journal over an index that already holds part of it gives the same index.
/// Dates are seconds since 1970.
enum DiskJournalRecord: Equatable {
    /// A file was renamed into place for `key`.
    case put(name: String, key: String?, size: Int, lastAccess: Double, expiry: Double, expiration: StorageExpiration)
    /// An entry was read: its last access and, maybe, its expiry changed.
    case touch(name: String, lastAccess: Double, expiry: Double)
    /// An entry's file was removed.
    case remove(name: String)

    var name: String {
        switch self {
        case .put(let name, _, _, _, _, _), .touch(let name, _, _), .remove(let name): return name
        }
    }

    /// The bytes every journal starts with.
    static let header: [UInt8] = Array("KFJRNL".utf8) + [0, 1]
    /// Frames longer than this are corruption, not records.
    static let maximumPayload = 1 << 20
    static let frameOverhead = 8
    /// The largest size a put may claim (256 TiB): beyond it the record is corruption or hostile,
    /// and summing such sizes could overflow the index's total.
    static let maximumEntrySize: UInt64 = 1 << 48

    /// Appends this record, framed as `[u32 length][u32 CRC-32][payload]` (little endian), to `out`.
    func encode(into out: inout [UInt8]) {
        var payload = [UInt8]()
        switch self {
        case .put(let name, let key, let size, let lastAccess, let expiry, let expiration):
            payload.append(1)
            payload.appendString(name)
            if let key {
                payload.append(1)
                payload.appendString(key)
            } else {
                payload.append(0)
            }
            payload.appendInteger(UInt64(max(0, size)))
            payload.appendInteger(lastAccess.bitPattern)
            payload.appendInteger(expiry.bitPattern)
            let (tag, value) = Self.encode(expiration)
            payload.append(tag)
            payload.appendInteger(value.bitPattern)
        case .touch(let name, let lastAccess, let expiry):
            payload.append(2)
            payload.appendString(name)
            payload.appendInteger(lastAccess.bitPattern)
            payload.appendInteger(expiry.bitPattern)
        case .remove(let name):
            payload.append(3)
            payload.appendString(name)
        }
        out.appendInteger(UInt32(payload.count))
        out.appendInteger(CRC32.checksum(payload))
        out.append(contentsOf: payload)
    }

    /// What the bytes at the start of a buffer hold.
    enum Decoded {
        /// A whole, valid record taking `length` bytes.
        case record(DiskJournalRecord, length: Int)
        /// Too few bytes for the record the frame announces: a write in progress or a torn tail.
        case incomplete
        /// A frame whose length or checksum is wrong.
        case corrupt
    }

    /// Decodes the frame at the start of `bytes`.
    static func decode(_ bytes: UnsafeRawBufferPointer) -> Decoded {
        guard bytes.count >= frameOverhead else { return .incomplete }
        let length = Int(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
        let checksum = bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian
        guard length > 0, length <= maximumPayload else { return .corrupt }
        guard bytes.count >= frameOverhead + length else { return .incomplete }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[frameOverhead..<(frameOverhead + length)])
        guard CRC32.checksum(payload) == checksum else { return .corrupt }
        var reader = ByteReader(bytes: payload)
        guard let record = parse(&reader), reader.isAtEnd else { return .corrupt }
        return .record(record, length: frameOverhead + length)
    }

    private static func parse(_ reader: inout ByteReader) -> DiskJournalRecord? {
        guard let kind = reader.byte(), let name = reader.string() else { return nil }
        switch kind {
        case 1:
            guard let hasKey = reader.byte() else { return nil }
            var key: String?
            if hasKey == 1 {
                guard let read = reader.string() else { return nil }
                key = read
            }
            guard let size = reader.integer(UInt64.self), size <= maximumEntrySize,
                  let lastAccess = reader.integer(UInt64.self), let expiry = reader.integer(UInt64.self),
                  let tag = reader.byte(), let value = reader.integer(UInt64.self),
                  let expiration = decodeExpiration(tag: tag, value: Double(bitPattern: value))
            else { return nil }
            return .put(name: name, key: key, size: Int(size), lastAccess: Double(bitPattern: lastAccess),
                        expiry: Double(bitPattern: expiry), expiration: expiration)
        case 2:
            guard let lastAccess = reader.integer(UInt64.self), let expiry = reader.integer(UInt64.self) else { return nil }
            return .touch(name: name, lastAccess: Double(bitPattern: lastAccess), expiry: Double(bitPattern: expiry))
        case 3:
            return .remove(name: name)
        default:
            return nil
        }
    }

    private static func encode(_ expiration: StorageExpiration) -> (UInt8, Double) {
        switch expiration {
        case .never: return (0, 0)
        case .seconds(let seconds): return (1, seconds)
        case .days(let days): return (2, Double(days))
        case .date(let date): return (3, date.timeIntervalSince1970)
        case .expired: return (4, 0)
        }
    }

    private static func decodeExpiration(tag: UInt8, value: Double) -> StorageExpiration? {
        switch tag {
        case 0: return .never
        case 1: return .seconds(value)
        case 2:
            guard value.isFinite, abs(value) < 1e9 else { return nil }
            return .days(Int(value))
        case 3: return .date(Date(timeIntervalSince1970: value))
        case 4: return .expired
        default: return nil
        }
    }
}

private extension Array where Element == UInt8 {
    mutating func appendInteger<I: FixedWidthInteger>(_ value: I) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendString(_ string: String) {
        appendInteger(UInt32(string.utf8.count))
        append(contentsOf: string.utf8)
    }
}

/// Reads little-endian values from a record payload, failing (nil) past its end.
private struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer<I: FixedWidthInteger>(_: I.Type) -> I? {
        let size = MemoryLayout<I>.size
        guard bytes.count - offset >= size else { return nil }
        defer { offset += size }
        return I(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: I.self))
    }

    mutating func string() -> String? {
        guard let length = integer(UInt32.self).map(Int.init), bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }
}

/// CRC-32 (IEEE 802.3, reflected), the checksum of each journal record.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1
        }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
