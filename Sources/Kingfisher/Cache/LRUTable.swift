import Foundation

/// A key-value table that remembers the order of use: a hash index from key to slot
/// (``SlotIndex``), and a doubly linked list threaded through arrays indexed by slot, newest at
/// the head.
///
/// Every operation but the two walks (``forEachSlot(_:)``, ``removeEntries(where:)``) is O(1):
/// slots and links are indices, and removed slots go on a free list (threaded through `older`)
/// so that entries never move. The columns are split by use so that a hit touches little memory:
/// `hot` (key, value and expiry, all read on every hit: 32 bytes for a class value, so never
/// across two cache lines), `links` (8 bytes a slot, rewritten on every hit), `expirations` (read
/// by a hit that restarts the expiration), `records` (hash and cost, read only when an entry
/// goes).
/// Callers pass each key's `hashValue`, which lets them hash outside their lock. Not thread-safe:
/// ``MemoryStorage/Backend`` owns one behind its lock.
///
/// The stored properties are internal rather than private(set) so that the backend's inlinable
/// code can reach them; only this type's methods change them.
@usableFromInline
struct LRUTable<Value> {
    /// What a hit reads: the key to confirm the match, the value and when it expires.
    @usableFromInline
    struct Hot {
        @usableFromInline var key: String
        @usableFromInline var value: Value?
        /// When the value stops being valid.
        @usableFromInline var expiry: Date

        @inlinable
        init(key: String, value: Value?, expiry: Date) {
            self.key = key
            self.value = value
            self.expiry = expiry
        }
    }

    /// The neighbours of a slot in the order of use; -1 ends the list.
    @usableFromInline
    struct Link {
        /// Towards the least recently used end; on the free list, the next free slot.
        @usableFromInline var older: Int32
        /// Towards the most recently used end.
        @usableFromInline var newer: Int32

        @inlinable
        init(older: Int32, newer: Int32) {
            self.older = older
            self.newer = newer
        }
    }

    /// What only removal reads.
    @usableFromInline
    struct Record {
        @usableFromInline var hash: Int
        @usableFromInline var cost: Int

        @inlinable
        init(hash: Int, cost: Int) {
            self.hash = hash
            self.cost = cost
        }
    }

    /// The most slots a table holds, so that links fit in 32 bits; far above any real cache.
    @usableFromInline static var capacityLimit: Int { min(Int(Int32.max), SlotIndex.capacityLimit) }

    @usableFromInline var hot: [Hot] = []
    @usableFromInline var links: [Link] = []
    /// The expiration each value was stored with, restarted by `.cacheTime` on a hit.
    @usableFromInline var expirations: [StorageExpiration] = []
    @usableFromInline var records: [Record] = []
    @usableFromInline var index = SlotIndex()
    @usableFromInline var freeHead: Int32 = -1
    @usableFromInline var newest: Int32 = -1
    @usableFromInline var oldest: Int32 = -1
    @usableFromInline var totalCost = 0

    @inlinable
    init() {}

    /// The number of values held, expired or not.
    @inlinable
    var count: Int { index.count }

    /// The slot holding `key`, whose `hashValue` is `hash`, or nil.
    @inlinable
    func slot(forKey key: String, hash: Int) -> Int? {
        index.find(hash: hash) { hot[$0].key == key }
    }

    /// Makes the entry at `slot` the most recently used.
    @inlinable
    mutating func touch(_ slot: Int) {
        guard slot != Int(newest) else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    /// Adds a value as the most recently used; the key must not be held already.
    ///
    /// Returns false, storing nothing, when the table already has ``capacityLimit`` slots.
    @inlinable @discardableResult
    mutating func insert(key: String, hash: Int, value: Value, cost: Int, expiry: Date, expiration: StorageExpiration) -> Bool {
        let entry = Hot(key: key, value: value, expiry: expiry)
        let slot: Int
        if freeHead >= 0 {
            slot = Int(freeHead)
            freeHead = links[slot].older
            hot[slot] = entry
            expirations[slot] = expiration
            records[slot] = Record(hash: hash, cost: cost)
        } else {
            guard hot.count < Self.capacityLimit else { return false }
            slot = hot.count
            hot.append(entry)
            expirations.append(expiration)
            links.append(Link(older: -1, newer: -1))
            records.append(Record(hash: hash, cost: cost))
        }
        index.insert(hash: hash, slot: slot)
        totalCost += cost
        linkAsNewest(slot)
        return true
    }

    /// Removes the entry at `slot` and releases its value.
    @inlinable
    mutating func remove(at slot: Int) {
        unlink(slot)
        index.remove(hash: records[slot].hash, slot: slot)
        totalCost -= records[slot].cost
        hot[slot] = Hot(key: "", value: nil, expiry: .distantPast)
        expirations[slot] = .expired
        records[slot] = Record(hash: 0, cost: 0)
        links[slot].older = freeHead
        freeHead = Int32(slot)
    }

    /// Removes the least recently used entry; false when the table is empty.
    @inlinable @discardableResult
    mutating func removeOldest() -> Bool {
        guard oldest >= 0 else { return false }
        remove(at: Int(oldest))
        return true
    }

    /// Empties the table and releases its storage.
    @inlinable
    mutating func removeAll() {
        self = LRUTable()
    }

    /// Calls `body` with every held slot, newest first; `body` must not change the table.
    @inlinable
    func forEachSlot(_ body: (Int) -> Void) {
        var slot = Int(newest)
        while slot >= 0 {
            let next = Int(links[slot].older)
            body(slot)
            slot = next
        }
    }

    /// Removes every entry whose hot part makes `shouldRemove` true.
    @inlinable
    mutating func removeEntries(where shouldRemove: (Hot) -> Bool) {
        var slot = Int(newest)
        while slot >= 0 {
            let next = Int(links[slot].older)
            if shouldRemove(hot[slot]) { remove(at: slot) }
            slot = next
        }
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let link = links[slot]
        if link.older >= 0 { links[Int(link.older)].newer = link.newer } else { oldest = link.newer }
        if link.newer >= 0 { links[Int(link.newer)].older = link.older } else { newest = link.older }
        links[slot] = Link(older: -1, newer: -1)
    }

    @inlinable
    mutating func linkAsNewest(_ slot: Int) {
        links[slot] = Link(older: newest, newer: -1)
        if newest >= 0 { links[Int(newest)].newer = Int32(slot) } else { oldest = Int32(slot) }
        newest = Int32(slot)
    }
}
