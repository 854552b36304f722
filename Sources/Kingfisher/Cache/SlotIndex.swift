/// An open-addressing hash index from a key's hash to the slot holding the key, for ``LRUTable``.
///
/// It replaces `[String: Int32]` on the hit path: a bucket is one 64-bit word (slot + 1 in the
/// high half, the low 32 bits of the hash in the low half, 0 when empty), probed linearly at a
/// load of at most one half. A lookup compares keys only when the stored hash bits match, so it
/// touches one or two words of a compact array instead of the strings of colliding keys.
/// Removal shifts the following entries back (no tombstones), so lookups stay short whatever
/// the history. Hashes are `String.hashValue`, seeded per process, so crafted keys cannot
/// flood one chain more than they could flood a `Dictionary`.
@usableFromInline
struct SlotIndex {
    @usableFromInline var buckets: [UInt64]
    @usableFromInline var mask: Int
    @usableFromInline var count = 0

    /// The most entries an index holds: its bucket positions must fit in the 32 hash bits kept.
    @usableFromInline static var capacityLimit: Int { 1 << 30 }

    @inlinable
    init() {
        buckets = Array(repeating: 0, count: 16)
        mask = 15
    }

    /// The slot of the entry with this hash for which `isMatch` holds, or nil.
    @inlinable
    func find(hash: Int, where isMatch: (Int) -> Bool) -> Int? {
        let tag = UInt64(UInt32(truncatingIfNeeded: hash))
        var position = hash & mask
        while true {
            let bucket = buckets[position]
            if bucket == 0 { return nil }
            if bucket & 0xFFFF_FFFF == tag {
                let slot = Int(bucket >> 32) - 1
                if isMatch(slot) { return slot }
            }
            position = (position + 1) & mask
        }
    }

    /// Adds `slot` under `hash`; the caller makes sure the key is not indexed already.
    @inlinable
    mutating func insert(hash: Int, slot: Int) {
        if (count + 1) * 2 > buckets.count { grow() }
        place(UInt64(slot + 1) << 32 | UInt64(UInt32(truncatingIfNeeded: hash)))
        count += 1
    }

    /// Removes `slot`, indexed under `hash`; does nothing when it is not there.
    @inlinable
    mutating func remove(hash: Int, slot: Int) {
        let wanted = UInt64(slot + 1)
        var hole = hash & mask
        while buckets[hole] >> 32 != wanted {
            if buckets[hole] == 0 { return }
            hole = (hole + 1) & mask
        }
        // Move back every later entry of the cluster whose home position is not after the hole.
        var position = hole
        while true {
            position = (position + 1) & mask
            let bucket = buckets[position]
            if bucket == 0 { break }
            let home = Int(bucket & 0xFFFF_FFFF) & mask
            if (position &- home) & mask >= (position &- hole) & mask {
                buckets[hole] = bucket
                hole = position
            }
        }
        buckets[hole] = 0
        count -= 1
    }

    @inlinable
    mutating func place(_ bucket: UInt64) {
        var position = Int(bucket & 0xFFFF_FFFF) & mask
        while buckets[position] != 0 { position = (position + 1) & mask }
        buckets[position] = bucket
    }

    @inlinable
    mutating func grow() {
        let old = buckets
        buckets = Array(repeating: 0, count: old.count * 2)
        mask = buckets.count - 1
        for bucket in old where bucket != 0 { place(bucket) }
    }
}
