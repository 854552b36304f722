import Foundation
import Testing
@testable import Kingfisher

/// Journals found by `scripts/fuzz.sh disk-journal` (issue 19): valid frames whose contents cannot
/// be true. Opening such a folder must neither trap nor lose the entries that are real.
@Suite struct DiskJournalHostileTests {
    /// The crashing journal as the fuzzer wrote it: two frames with correct checksums, each a put
    /// claiming about 6e18 and 8e18 bytes, whose sum overflowed the index's total size.
    static let overflowingSizes: [UInt8] = [
        0x4B, 0x46, 0x4A, 0x52, 0x4E, 0x4C, 0x00, 0x01, 0x28, 0x00, 0x00, 0x00, 0x27, 0x91, 0xE8, 0x8A,
        0x01, 0x01, 0x00, 0x00, 0x00, 0x61, 0x02, 0xF8, 0xF8, 0xF8, 0x56, 0x56, 0x56, 0x56, 0x56, 0xD5,
        0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0x03,
        0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0x16, 0x00, 0x00, 0x00, 0xD1, 0x31, 0xEC, 0x25,
        0x02, 0x01, 0x00, 0x00, 0x00, 0x62, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0xD5, 0x56, 0x56, 0x00, 0xB8,
        0xF8, 0xF8, 0xF8, 0xF8, 0xE8, 0x4B, 0x28, 0x00, 0x00, 0x00, 0x2D, 0x0A, 0x30, 0xAC, 0x01, 0x01,
        0x00, 0x00, 0x00, 0x62, 0x02, 0x8C, 0x8C, 0x7E, 0x8C, 0x43, 0x6F, 0x6D, 0x70, 0xFF, 0xFF, 0x7B,
        0x4E, 0x5E, 0x7F, 0x4F, 0xB9, 0x61, 0x72, 0x61, 0x62, 0x00, 0xF8, 0xF8, 0x00, 0x02, 0xF8, 0x56,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]

    @Test func aJournalWhoseSizesOverflowOpensAndStaysUsable() throws {
        let fixture = try DiskFixture()
        defer { fixture.remove() }
        var config = fixture.config()
        config.usesHashedFileName = false
        let folder = config.cacheFolderURL
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".kf"), withIntermediateDirectories: true)
        try Data(Self.overflowingSizes).write(to: folder.appendingPathComponent(".kf/journal"))

        let storage = try DiskStorage.Backend<Data>(config: config)
        #expect(try storage.entries().isEmpty)
        #expect(try storage.totalSize() == 0)
        try storage.store(value: Data([1, 2, 3]), forKey: "c")
        let reopened = try DiskStorage.Backend<Data>(config: config)
        #expect(try reopened.entries().map(\.key) == ["c"])
        #expect(try reopened.totalSize() == 3)
        #expect(try reopened.value(forKey: "c") == Data([1, 2, 3]))
    }

    @Test func aPutClaimingMoreThanAnyFileIsCorrupt() {
        for (size, valid) in [(Int(DiskJournalRecord.maximumEntrySize), true), (Int(DiskJournalRecord.maximumEntrySize) + 1, false)] {
            var bytes: [UInt8] = []
            DiskJournalRecord.put(name: "n", key: nil, size: size, lastAccess: 1, expiry: 2, expiration: .never)
                .encode(into: &bytes)
            bytes.withUnsafeBytes { buffer in
                switch DiskJournalRecord.decode(buffer) {
                case .record: #expect(valid, "a put of \(size) bytes decoded")
                case .corrupt: #expect(!valid, "a put of \(size) bytes is corrupt")
                case .incomplete: Issue.record("a whole record is incomplete")
                }
            }
        }
    }

    @Test func theIndexSkipsAPutThatWouldOverflowItsTotal() {
        var index = DiskIndex()
        index.apply(.put(name: "a", key: nil, size: Int.max - 1, lastAccess: 1, expiry: 2, expiration: .never), length: 40)
        index.apply(.put(name: "b", key: nil, size: 2, lastAccess: 1, expiry: 2, expiration: .never), length: 40)
        #expect(index.count == 1 && index.totalSize == Int.max - 1)
        // Replacing an entry counts only the difference.
        index.apply(.put(name: "a", key: nil, size: 5, lastAccess: 1, expiry: 2, expiration: .never), length: 40)
        index.apply(.put(name: "b", key: nil, size: 2, lastAccess: 1, expiry: 2, expiration: .never), length: 40)
        #expect(index.count == 2 && index.totalSize == 7)
    }
}
