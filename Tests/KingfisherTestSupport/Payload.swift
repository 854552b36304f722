import Foundation

/// Bytes that can be checked from the key alone: the key, a NUL, then a key-seeded sequence.
public func payload(forKey key: String, maxSize: Int) -> Data {
    var seed: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let size = Int(seed % UInt64(maxSize)) + key.utf8.count + 1
    var bytes = [UInt8](key.utf8) + [0]
    bytes.reserveCapacity(size)
    var state = seed | 1
    while bytes.count < size {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        bytes.append(UInt8(truncatingIfNeeded: state))
    }
    return Data(bytes)
}
