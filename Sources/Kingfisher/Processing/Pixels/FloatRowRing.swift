/// Input rows of a resample widened to `Float`, each converted once: a ring of as many rows as the
/// vertical filter spans, so every row an output row reads is present while it is read.
///
/// Output rows read consecutive input rows whose first index never decreases, so a row that has
/// left the ring is never asked for again. The caller owns the memory: ``deallocate()`` when done.
struct FloatRowRing {
    /// The most floats a ring may hold (16 MB); a resample that would need more reads bytes instead.
    static let largestFloatCount = 4 << 20

    let rowLength: Int
    private let capacity: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Which input row each slot holds (-1: none yet).
    private let held: UnsafeMutablePointer<Int>

    /// A ring of `rows` rows of `rowLength` floats.
    init(rows: Int, rowLength: Int) {
        capacity = max(rows, 1)
        self.rowLength = rowLength
        storage = .allocate(capacity: capacity * rowLength)
        held = .allocate(capacity: capacity)
        held.initialize(repeating: -1, count: capacity)
    }

    /// Makes input row `index` of the RGBA8 bytes at `source` present, converting it if it is not.
    @inline(__always)
    func load(_ index: Int, from source: UnsafePointer<UInt8>) {
        let slot = index % capacity
        guard held[slot] != index else { return }
        let target = storage + slot * rowLength
        let input = source + index * rowLength
        for i in 0..<rowLength { target[i] = Float(input[i]) }
        held[slot] = index
    }

    /// The floats of input row `index`, which ``load(_:from:)`` has made present.
    @inline(__always)
    func row(_ index: Int) -> UnsafePointer<Float> {
        UnsafePointer(storage + (index % capacity) * rowLength)
    }

    /// Frees the ring.
    func deallocate() {
        storage.deallocate()
        held.deallocate()
    }
}
