import Foundation

/// Writes PNG files by hand, so a test knows every sample it stored and can check every decoded pixel.
///
/// Image data goes into zlib "stored" (uncompressed) deflate blocks, since Foundation on Linux has
/// no zlib API; rows use filter type 0. Any colour type, bit depth and Adam7 interlacing can be
/// written, and any extra chunk (PLTE, tRNS, gAMA…) or a hand-made IHDR can be put in.
enum PNGWriter {
    /// The PNG colour types.
    enum ColorType: UInt8 {
        case gray = 0
        case rgb = 2
        case palette = 3
        case grayAlpha = 4
        case rgba = 6

        /// Samples per pixel.
        var channels: Int {
            switch self {
            case .gray, .palette: return 1
            case .grayAlpha: return 2
            case .rgb: return 3
            case .rgba: return 4
            }
        }
    }

    /// One chunk: a four-letter type and its payload; the length and CRC are added when written.
    struct Chunk {
        var type: String
        var data: [UInt8]
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A whole PNG file. `samples` holds `width * height * colorType.channels` values, row-major,
    /// each below `1 << bitDepth` (palette indices for `.palette`). `extraChunks` go between IHDR
    /// and IDAT (put PLTE before tRNS).
    static func png(width: Int, height: Int, bitDepth: Int, colorType: ColorType, samples: [UInt16],
                    interlaced: Bool = false, extraChunks: [Chunk] = []) -> Data {
        precondition(samples.count == width * height * colorType.channels, "wrong number of samples")
        let header = ihdr(width: UInt32(width), height: UInt32(height), bitDepth: UInt8(bitDepth),
                          colorType: colorType, interlaced: interlaced)
        let raw = scanlines(width: width, height: height, bitDepth: bitDepth, channels: colorType.channels,
                            samples: samples, interlaced: interlaced)
        return file([header] + extraChunks + [Chunk(type: "IDAT", data: zlibStored(raw)), Chunk(type: "IEND", data: [])])
    }

    /// The signature followed by `chunks`, each with its length and CRC.
    static func file(_ chunks: [Chunk]) -> Data {
        var bytes = signature
        for chunk in chunks {
            bytes += chunkBytes(chunk)
        }
        return Data(bytes)
    }

    /// An IHDR chunk with any dimensions, including ones no real image has.
    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8, colorType: ColorType, interlaced: Bool = false) -> Chunk {
        Chunk(type: "IHDR", data: bigEndian32(width) + bigEndian32(height)
            + [bitDepth, colorType.rawValue, 0, 0, interlaced ? 1 : 0])
    }

    /// A PLTE chunk from RGB entries.
    static func plte(_ entries: [(UInt8, UInt8, UInt8)]) -> Chunk {
        Chunk(type: "PLTE", data: entries.flatMap { [$0.0, $0.1, $0.2] })
    }

    /// A tRNS chunk: alpha per palette entry, or one 16-bit sample per channel for gray and RGB.
    static func trns(_ bytes: [UInt8]) -> Chunk {
        Chunk(type: "tRNS", data: bytes)
    }

    /// A gAMA chunk; `gamma` is the file gamma times 100000 (45455 is sRGB's 1/2.2).
    static func gama(_ gamma: UInt32) -> Chunk {
        Chunk(type: "gAMA", data: bigEndian32(gamma))
    }

    // MARK: - Encoding pieces

    /// Length, type, payload and CRC-32 of type and payload.
    static func chunkBytes(_ chunk: Chunk) -> [UInt8] {
        let typeAndData = Array(chunk.type.utf8) + chunk.data
        return bigEndian32(UInt32(chunk.data.count)) + typeAndData + bigEndian32(crc32(typeAndData))
    }

    /// The filtered (filter 0) scanlines of the image, pass by pass when interlaced.
    static func scanlines(width: Int, height: Int, bitDepth: Int, channels: Int, samples: [UInt16], interlaced: Bool) -> [UInt8] {
        func row(_ y: Int, columns: StrideTo<Int>) -> [UInt8] {
            var values: [UInt16] = []
            for x in columns {
                let offset = (y * width + x) * channels
                values += samples[offset..<offset + channels]
            }
            return [0] + pack(values, bitDepth: bitDepth)
        }
        guard interlaced else {
            return (0..<height).flatMap { row($0, columns: stride(from: 0, to: width, by: 1)) }
        }
        var bytes: [UInt8] = []
        for pass in adam7 {
            // A pass with no columns or no rows has no scanlines at all, not even filter bytes.
            guard pass.x < width, pass.y < height else { continue }
            for y in stride(from: pass.y, to: height, by: pass.dy) {
                bytes += row(y, columns: stride(from: pass.x, to: width, by: pass.dx))
            }
        }
        return bytes
    }

    /// Adam7's seven passes: first column and row, and the steps between them.
    static let adam7: [(x: Int, y: Int, dx: Int, dy: Int)] = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
    ]

    /// Samples packed at `bitDepth`: big-endian pairs at 16, bytes at 8, most significant bits
    /// first below 8 with the last byte padded with zeros.
    static func pack(_ values: [UInt16], bitDepth: Int) -> [UInt8] {
        switch bitDepth {
        case 16:
            return values.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 8:
            return values.map { UInt8($0) }
        default:
            var bytes: [UInt8] = []
            var current = 0
            var used = 0
            for value in values {
                current = current << bitDepth | Int(value)
                used += bitDepth
                if used == 8 {
                    bytes.append(UInt8(current))
                    current = 0
                    used = 0
                }
            }
            if used > 0 {
                bytes.append(UInt8(current << (8 - used)))
            }
            return bytes
        }
    }

    /// A zlib stream of stored deflate blocks (at most 65,535 bytes each) with its Adler-32.
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [0x78, 0x01]  // deflate, 32 KB window, no preset dictionary; 0x7801 % 31 == 0
        var start = 0
        repeat {
            let end = min(bytes.count, start + 65_535)
            let length = UInt16(end - start)
            output.append(end == bytes.count ? 1 : 0)  // BFINAL on the last block, BTYPE 00 (stored)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start..<end]
            start = end
        } while start < bytes.count
        return output + bigEndian32(adler32(bytes))
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
            }
        }
        return ~crc
    }

    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    static func bigEndian16(_ value: UInt16) -> [UInt8] {
        [UInt8(value >> 8), UInt8(value & 0xFF)]
    }
}
