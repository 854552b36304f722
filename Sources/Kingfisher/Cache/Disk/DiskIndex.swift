import Foundation

/// The in-memory replay of a disk storage's journal: what is cached, how big, used when, until when.
struct DiskIndex {
    struct Item: Equatable {
        var key: String?
        var size: Int
        /// Seconds since 1970, by the storage's clock.
        var lastAccess: Double
        /// Seconds since 1970; `Date.distantFuture` for entries that never expire.
        var expiry: Double
        /// The expiration the entry was stored with, restarted by a `.cacheTime` read.
        var expiration: StorageExpiration
        /// Journal order of the last put or touch; breaks ties between equal access times.
        var order: UInt64
        /// The bytes the entry's put record takes, to tell when the journal is worth compacting.
        var recordBytes: Int

        func isExpired(at now: Double) -> Bool { expiry <= now }
    }

    private(set) var items: [String: Item] = [:]
    /// The sum of the sizes of all items.
    private(set) var totalSize = 0
    /// The bytes a compacted journal would need for the live items.
    private(set) var liveRecordBytes = 0
    private var nextOrder: UInt64 = 0

    subscript(name: String) -> Item? { items[name] }

    var count: Int { items.count }

    /// Applies one journal record that takes `length` bytes in the journal.
    ///
    /// A put that would take ``totalSize`` past `Int.max` cannot describe real files (only a
    /// damaged or hostile journal holds one) and is skipped; every replay of the same journal
    /// skips it alike, so storages sharing a folder still agree.
    mutating func apply(_ record: DiskJournalRecord, length: Int) {
        nextOrder &+= 1
        switch record {
        case .put(let name, let key, let size, let lastAccess, let expiry, let expiration):
            let others = totalSize - (items[name]?.size ?? 0)
            guard size >= 0, !others.addingReportingOverflow(size).overflow else { return }
            drop(name)
            items[name] = Item(key: key, size: size, lastAccess: lastAccess, expiry: expiry,
                               expiration: expiration, order: nextOrder, recordBytes: length)
            totalSize += size
            liveRecordBytes += length
        case .touch(let name, let lastAccess, let expiry):
            guard var item = items[name] else { return }
            item.lastAccess = lastAccess
            item.expiry = expiry
            item.order = nextOrder
            items[name] = item
        case .remove(let name):
            drop(name)
        }
    }

    private mutating func drop(_ name: String) {
        guard let old = items.removeValue(forKey: name) else { return }
        totalSize -= old.size
        liveRecordBytes -= old.recordBytes
    }

    mutating func removeAll() {
        self = DiskIndex()
    }

    /// Names from least to most recently used.
    func namesByRecency() -> [String] {
        items.sorted { lhs, rhs in
            lhs.value.lastAccess != rhs.value.lastAccess
                ? lhs.value.lastAccess < rhs.value.lastAccess : lhs.value.order < rhs.value.order
        }.map(\.key)
    }

    /// The records that rebuild this index from an empty journal, least recently used first.
    func compactedRecords() -> [DiskJournalRecord] {
        namesByRecency().compactMap { name in
            items[name].map {
                .put(name: name, key: $0.key, size: $0.size, lastAccess: $0.lastAccess,
                     expiry: $0.expiry, expiration: $0.expiration)
            }
        }
    }
}
