import Foundation

/// A key-value table that remembers the order of use: a dictionary from key to slot, and a doubly
/// linked list threaded through an array of entries, newest at the head.
///
/// Every operation but the two walks (``forEachSlot(_:)``, ``removeEntries(where:)``) is O(1): slots are indices, the links are indices,
/// and removed slots go on a free list (threaded through `older`) so that the array never moves
/// entries. Not thread-safe: ``MemoryStorage/Backend`` owns one behind its lock.
struct LRUTable<Value> {
    /// One stored value with its bookkeeping.
    struct Entry {
        var key: String
        var value: Value?
        var cost: Int
        /// When the value stops being valid.
        var expiry: Date
        /// The expiration the value was stored with, restarted by `.cacheTime` on a hit.
        var expiration: StorageExpiration
        /// The next entry towards the least recently used end, or -1.
        var older: Int
        /// The next entry towards the most recently used end, or -1.
        var newer: Int
    }

    private(set) var entries: [Entry] = []
    private var slots: [String: Int] = [:]
    private var freeHead = -1
    private(set) var newest = -1
    private(set) var oldest = -1
    private(set) var totalCost = 0

    /// The number of values held, expired or not.
    var count: Int { slots.count }

    /// All the keys held, expired or not, in no particular order.
    var allKeys: Dictionary<String, Int>.Keys { slots.keys }

    /// The slot holding `key`, or nil.
    func slot(forKey key: String) -> Int? { slots[key] }

    /// Makes the entry at `slot` the most recently used.
    mutating func touch(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    /// Sets the expiry of the entry at `slot`.
    mutating func setExpiry(_ expiry: Date, at slot: Int) {
        entries[slot].expiry = expiry
    }

    /// Adds a value as the most recently used; the key must not be held already.
    mutating func insert(key: String, value: Value, cost: Int, expiry: Date, expiration: StorageExpiration) {
        let entry = Entry(key: key, value: value, cost: cost, expiry: expiry, expiration: expiration, older: -1, newer: -1)
        let slot: Int
        if freeHead >= 0 {
            slot = freeHead
            freeHead = entries[slot].older
            entries[slot] = entry
        } else {
            slot = entries.count
            entries.append(entry)
        }
        slots[key] = slot
        totalCost += cost
        linkAsNewest(slot)
    }

    /// Removes the entry at `slot` and releases its value.
    mutating func remove(at slot: Int) {
        unlink(slot)
        slots.removeValue(forKey: entries[slot].key)
        totalCost -= entries[slot].cost
        entries[slot] = Entry(key: "", value: nil, cost: 0, expiry: .distantPast, expiration: .expired, older: freeHead, newer: -1)
        freeHead = slot
    }

    /// Removes the least recently used entry; false when the table is empty.
    @discardableResult
    mutating func removeOldest() -> Bool {
        guard oldest >= 0 else { return false }
        remove(at: oldest)
        return true
    }

    /// Empties the table and releases its storage.
    mutating func removeAll() {
        self = LRUTable()
    }

    /// Calls `body` with every held slot, newest first; `body` must not change the table.
    func forEachSlot(_ body: (Int) -> Void) {
        var slot = newest
        while slot >= 0 {
            let next = entries[slot].older
            body(slot)
            slot = next
        }
    }

    /// Removes every entry for which `shouldRemove` is true.
    mutating func removeEntries(where shouldRemove: (Entry) -> Bool) {
        var slot = newest
        while slot >= 0 {
            let next = entries[slot].older
            if shouldRemove(entries[slot]) { remove(at: slot) }
            slot = next
        }
    }

    private mutating func unlink(_ slot: Int) {
        let older = entries[slot].older, newer = entries[slot].newer
        if older >= 0 { entries[older].newer = newer } else { oldest = newer }
        if newer >= 0 { entries[newer].older = older } else { newest = older }
        entries[slot].older = -1
        entries[slot].newer = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        entries[slot].older = newest
        entries[slot].newer = -1
        if newest >= 0 { entries[newest].newer = slot } else { oldest = slot }
        newest = slot
    }
}
