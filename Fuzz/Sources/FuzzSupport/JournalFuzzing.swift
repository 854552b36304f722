import Foundation
import Kingfisher

/// Turns fuzz input into journal bytes and runs a disk storage over them.
public enum JournalFuzzing {
    /// Entry files present in the folder, by name (their keys, with unhashed names).
    static let files: [String: [UInt8]] = ["a": [1, 2, 3, 4], "b": Array(repeating: 7, count: 9)]
    static let names = ["a", "b", "c", ""]
    static let parent: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        return URL(fileURLWithPath: base).appendingPathComponent("kf-fuzz-journal-\(getpid())")
    }()
    static let clock = CacheClock { Date(timeIntervalSince1970: 1_700_000_000) }

    /// Journal bytes made from `reader` as the first byte says (see the target's comment).
    public static func journal(from reader: inout FuzzReader) -> [UInt8] {
        let mode = reader.byte() % 4
        var journal = JournalBytes()
        switch mode {
        case 0:
            journal.appendRaw(reader.rest())
            return journal.bytes
        case 1:
            return reader.rest()
        case 2:
            while !reader.isAtEnd {
                let length = Int(reader.byte())
                if length == 0 { break }
                journal.appendFrame(reader.take(length))
            }
        default:
            while !reader.isAtEnd {
                let kind = reader.byte()
                if kind == 0 { break }
                journal.appendFrame(typedPayload(kind: kind, reader: &reader))
            }
        }
        journal.appendRaw(reader.rest())
        return journal.bytes
    }

    /// A put, touch or remove record (or a wrong kind) with fields from `reader`.
    static func typedPayload(kind: UInt8, reader: inout FuzzReader) -> [UInt8] {
        var out: [UInt8] = []
        let recordKind = kind % 4 + 1
        out.append(recordKind)
        let name = Array(names[Int(reader.byte() % 4)].utf8)
        appendString(name, to: &out)
        switch recordKind {
        case 1:
            let hasKey = reader.byte() % 3
            out.append(hasKey)
            if hasKey == 1 { appendString(name, to: &out) }
            let sizeChoice = reader.byte()
            let size: UInt64 = sizeChoice < 128 ? UInt64(sizeChoice) : reader.uint64()
            appendInteger(size, to: &out)
            appendInteger(reader.uint64(), to: &out)
            appendInteger(reader.uint64(), to: &out)
            out.append(reader.byte() % 6)
            appendInteger(reader.uint64(), to: &out)
        case 2:
            appendInteger(reader.uint64(), to: &out)
            appendInteger(reader.uint64(), to: &out)
        default:
            break
        }
        return out
    }

    static func appendString(_ string: [UInt8], to out: inout [UInt8]) {
        appendInteger(UInt32(string.count), to: &out)
        out.append(contentsOf: string)
    }

    static func appendInteger<I: FixedWidthInteger>(_ value: I, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// Lays out a cache folder with `journal`, opens it and uses it; a second storage then
    /// replays the journal the first left and must see the same entries.
    public static func run(journal: [UInt8]) {
        var config = DiskStorage.Config(name: "fuzz", sizeLimit: 12, directory: parent)
        config.usesHashedFileName = false
        config.clock = clock
        let folder = config.directory.map { $0.appendingPathComponent("com.onevcat.Kingfisher.ImageCache.fuzz") }
        guard let folder else { return }
        let manager = FileManager.default
        try? manager.removeItem(at: folder)
        let metadata = folder.appendingPathComponent(".kf")
        do {
            try manager.createDirectory(at: metadata, withIntermediateDirectories: true)
            for (name, contents) in files {
                try Data(contents).write(to: folder.appendingPathComponent(name))
            }
            try Data(journal).write(to: metadata.appendingPathComponent("journal"))
        } catch {
            FuzzCheck.that(false, "cannot lay out the cache folder: \(error)")
        }
        guard let storage = try? DiskStorage.Backend<Data>(config: config) else { return }
        _ = try? storage.totalSize()
        _ = try? storage.entries()
        for key in names where !key.isEmpty {
            _ = storage.isCached(forKey: key)
            if let value = try? storage.value(forKey: key) {
                FuzzCheck.that(value == Data(files[key] ?? []), "entry \(key) read back wrong")
            }
        }
        try? storage.store(value: Data([9, 9, 9]), forKey: "c")
        _ = try? storage.removeExpiredValues()
        _ = try? storage.removeSizeExceededValues()
        let first = try? storage.entries()
        guard let second = try? DiskStorage.Backend<Data>(config: config) else { return }
        let replayed = try? second.entries()
        let summary: ([DiskStorage.Entry]?) -> Set<String> = { entries in
            Set((entries ?? []).map { "\($0.fileURL.lastPathComponent) \($0.size) \($0.key ?? "-")" })
        }
        FuzzCheck.that(summary(first) == summary(replayed),
                       "replay differs: \(summary(first)) vs \(summary(replayed))")
    }
}
