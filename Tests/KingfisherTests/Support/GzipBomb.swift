import Foundation

/// A valid gzip stream that inflates to `decodedSize` zero bytes, for the decompression-bomb test.
///
/// One fixed-Huffman deflate block: a literal zero, then copies of 258 bytes at distance 1 (13 bits
/// each), so about 160 decoded bytes per byte on the wire. The trailer carries the real CRC-32 and
/// size, computed without touching the decoded bytes.
enum GzipBomb {
    /// The stream for `1 + 258 × copies` zero bytes, written bit by bit (slow for big streams;
    /// ``make(copies:)`` must give the same bytes).
    static func makeBitByBit(copies: Int) -> Data {
        var bits = BitWriter()
        bits.write(1, count: 1) // BFINAL
        bits.write(1, count: 2) // BTYPE 01: fixed Huffman
        bits.writeCode(0x30, length: 8) // literal 0
        for _ in 0..<copies {
            bits.writeCode(0xC5, length: 8) // length symbol 285: 258 bytes
            bits.writeCode(0, length: 5) // distance symbol 0: distance 1
        }
        bits.writeCode(0, length: 7) // end of block
        return wrap(bits.flushed, decodedSize: 1 + 258 * copies)
    }

    /// The stream for `1 + 258 × copies` zero bytes, built fast: after the first 11 bits every
    /// copy is the same 13 bits, so from byte 2 on the bytes repeat every 13 (8 copies), and the
    /// end-of-block code and the padding are all zero bits.
    static func make(copies: Int) -> (gzip: Data, decodedSize: Int) {
        var head = BitWriter()
        head.write(1, count: 1)
        head.write(1, count: 2)
        head.writeCode(0x30, length: 8)
        for _ in 0..<16 {
            head.writeCode(0xC5, length: 8)
            head.writeCode(0, length: 5)
        }
        let sample = head.flushed
        let period = Array(sample[2..<15])
        let dataBits = 11 + 13 * copies
        let totalBytes = (dataBits + 7 + 7) / 8
        var bytes = [UInt8](repeating: 0, count: totalBytes)
        for index in 0..<(dataBits / 8) {
            bytes[index] = index < 2 ? sample[index] : period[(index - 2) % 13]
        }
        let spare = dataBits % 8
        if spare > 0 {
            let index = dataBits / 8
            let full = index < 2 ? sample[index] : period[(index - 2) % 13]
            bytes[index] = full & UInt8((1 << spare) - 1)
        }
        let decoded = 1 + 258 * copies
        return (wrap(bytes, decodedSize: decoded), decoded)
    }

    /// The gzip header, the deflate bytes and the trailer (CRC-32 and size of the zeros).
    private static func wrap(_ deflate: [UInt8], decodedSize: Int) -> Data {
        var gzip = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        gzip.append(contentsOf: deflate)
        for value in [crc32OfZeros(decodedSize), UInt32(truncatingIfNeeded: decodedSize)] {
            withUnsafeBytes(of: value.littleEndian) { gzip.append(contentsOf: $0) }
        }
        return gzip
    }

    /// CRC-32 (the gzip one) of `count` zero bytes: the register after the zeros is a linear map
    /// of the initial one, applied by repeated squaring (as zlib's `crc32_combine` does).
    static func crc32OfZeros(_ count: Int) -> UInt32 {
        func times(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
            var sum: UInt32 = 0, vector = vector, row = 0
            while vector != 0 {
                if vector & 1 != 0 { sum ^= matrix[row] }
                vector >>= 1
                row += 1
            }
            return sum
        }
        func square(_ matrix: [UInt32]) -> [UInt32] { matrix.map { times(matrix, $0) } }
        // One zero bit, then 2, 4 and 8 bits: one zero byte.
        var byteOperator: [UInt32] = [0xEDB8_8320] + (0..<31).map { UInt32(1) << $0 }
        for _ in 0..<3 { byteOperator = square(byteOperator) }
        var register: UInt32 = 0xFFFF_FFFF
        var remaining = count
        var power = byteOperator
        while remaining > 0 {
            if remaining & 1 != 0 { register = times(power, register) }
            remaining >>= 1
            if remaining > 0 { power = square(power) }
        }
        return ~register
    }

    /// CRC-32 computed byte by byte, to check ``crc32OfZeros(_:)`` against.
    static func crc32(_ bytes: Data) -> UInt32 {
        var register: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            register ^= UInt32(byte)
            for _ in 0..<8 { register = register & 1 != 0 ? (register >> 1) ^ 0xEDB8_8320 : register >> 1 }
        }
        return ~register
    }

    /// Packs bits least significant first, as deflate does.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt32 = 0
        private var filled = 0

        /// Writes the low `count` bits of `value`, least significant first (header fields).
        mutating func write(_ value: UInt32, count: Int) {
            for index in 0..<count { push((value >> index) & 1) }
        }

        /// Writes a Huffman code, most significant bit first.
        mutating func writeCode(_ code: UInt32, length: Int) {
            for index in stride(from: length - 1, through: 0, by: -1) { push((code >> index) & 1) }
        }

        private mutating func push(_ bit: UInt32) {
            current |= bit << filled
            filled += 1
            if filled == 8 {
                bytes.append(UInt8(current))
                current = 0
                filled = 0
            }
        }

        /// The bytes, the last one padded with zero bits.
        var flushed: [UInt8] { filled > 0 ? bytes + [UInt8(current)] : bytes }
    }
}
