import Foundation
import KingfisherTestSupport
import Testing
@testable import Kingfisher

/// The libdeflate paths of the PNG codec: the fast decoder gives libpng's pixels or steps aside,
/// and the encoder writes files libpng reads back exactly.
@Suite("PNG through libdeflate")
struct PNGDeflatePathTests {
    /// A photo-like test card: gradients, a hard edge and seeded noise, so that every filter type
    /// wins on some row.
    static func card(width: Int, height: Int, channels: Int, seed: UInt64 = 7) -> [UInt8] {
        var generator = SeededGenerator(state: seed)
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * channels
                let noise = Int(generator.next() % 9) - 4
                let edge = x > width / 2 ? 90 : 0
                for channel in 0..<channels {
                    let value: Int
                    switch channel {
                    case 0: value = x * 255 / max(width - 1, 1) + noise
                    case 1: value = y * 255 / max(height - 1, 1) + edge
                    case 2: value = (x + y) * 3 % 256 + noise
                    default: value = y < height / 3 ? 255 : 40 + x % 200
                    }
                    bytes[offset + channel] = UInt8(clamping: value)
                }
            }
        }
        return bytes
    }

    /// `count` bytes a channel of `channels` as RGBA8, premultiplied: what a decode must give.
    static func expectedRGBA(_ bytes: [UInt8], channels: Int) -> [UInt8] {
        var rgba: [UInt8] = []
        for pixel in stride(from: 0, to: bytes.count, by: channels) {
            let alpha = channels == 4 ? UInt32(bytes[pixel + 3]) : 255
            for channel in 0..<3 {
                rgba.append(UInt8((UInt32(bytes[pixel + channel]) * alpha + 127) / 255))
            }
            rgba.append(UInt8(alpha))
        }
        return rgba
    }

    @Test("every filter undoes to the row it was made from", arguments: [1, 2, 3, 4])
    func filtersRoundTrip(bpp: Int) {
        var generator = SeededGenerator(state: UInt64(bpp))
        let count = bpp * 37
        let above = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let row = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        for type: UInt8 in 0...4 {
            for previous in [above, [UInt8](repeating: 0, count: count)] {
                var filtered = [UInt8](repeating: 0, count: count)
                row.withUnsafeBufferPointer { rowBytes in
                    previous.withUnsafeBufferPointer { aboveBytes in
                        filtered.withUnsafeMutableBufferPointer { output in
                            _ = PNGRowFilters.filter(type, row: rowBytes.baseAddress!, above: aboveBytes.baseAddress!, count: count,
                                                     bpp: bpp, into: output.baseAddress!, limit: .max)
                        }
                    }
                }
                let isFirstRow = previous.allSatisfy { $0 == 0 }
                let undone = previous.withUnsafeBufferPointer { aboveBytes in
                    filtered.withUnsafeMutableBufferPointer { bytes in
                        PNGRowFilters.unfilter(type, row: bytes.baseAddress!, previous: isFirstRow ? nil : aboveBytes.baseAddress,
                                               count: count, bpp: bpp)
                    }
                }
                #expect(undone)
                #expect(filtered == row, "filter \(type), bpp \(bpp), first row \(isFirstRow)")
            }
        }
    }

    @Test("an unknown filter type is refused")
    func unknownFilter() {
        var row: [UInt8] = [1, 2, 3]
        let undone = row.withUnsafeMutableBufferPointer {
            PNGRowFilters.unfilter(5, row: $0.baseAddress!, previous: nil, count: 3, bpp: 1)
        }
        #expect(!undone)
    }

    @Test("the encoder's files decode to their pixels on both paths", arguments: [3, 4])
    func encodeAndDecodeBothWays(channels: Int) throws {
        let width = 61, height = 47
        let pixels = Self.card(width: width, height: height, channels: channels)
        let file = try pixels.withUnsafeBytes { try PNGDeflateEncoder.encode($0, width: width, height: height, channels: channels) }
        let expected = Self.expectedRGBA(pixels, channels: channels)

        let fast = try #require(try PNGDeflateDecoder.decode(file, options: ImageCreatingOptions()))
        let libpng = try PNGCodec.decodePixels(file, options: ImageCreatingOptions(), allowsFastPath: false)
        #expect(fast.frame.pixels == expected)
        #expect(libpng.frame.pixels == expected)
        #expect(fast.opaque == (channels == 3))
        #expect(libpng.opaque == fast.opaque)
        // Rows used more than one filter type: the card is built for that.
        let layout = try #require(file.withUnsafeBytes { PNGDeflateDecoder.layout(of: $0) })
        #expect(layout.width == width && layout.height == height && layout.channels == channels)
    }

    @Test("the encoder writes IHDR, sRGB, one IDAT and IEND, the same bytes every time")
    func encoderChunks() throws {
        let pixels = Self.card(width: 20, height: 10, channels: 3)
        let first = try pixels.withUnsafeBytes { try PNGDeflateEncoder.encode($0, width: 20, height: 10, channels: 3) }
        let second = try pixels.withUnsafeBytes { try PNGDeflateEncoder.encode($0, width: 20, height: 10, channels: 3) }
        #expect(first == second)
        #expect(Self.chunkTypes(first) == ["IHDR", "sRGB", "IDAT", "IEND"])
        let image = try KFCrossPlatformImage(data: first, options: ImageCreatingOptions())
        #expect(image.pixelWidth == 20 && image.pixelHeight == 10)
    }

    @Test("image data split over several IDAT chunks decodes the same")
    func splitImageData() throws {
        let pixels = Self.card(width: 40, height: 30, channels: 4)
        let file = try pixels.withUnsafeBytes { try PNGDeflateEncoder.encode($0, width: 40, height: 30, channels: 4) }
        let chunks = Self.chunks(file)
        let stream = try #require(chunks.first { $0.type == "IDAT" }).data
        let third = stream.count / 3
        let split = PNGWriter.file([
            PNGWriter.Chunk(type: "IHDR", data: try #require(chunks.first).data),
            PNGWriter.Chunk(type: "IDAT", data: Array(stream[..<third])),
            PNGWriter.Chunk(type: "IDAT", data: Array(stream[third..<(2 * third)])),
            PNGWriter.Chunk(type: "IDAT", data: Array(stream[(2 * third)...])),
            PNGWriter.Chunk(type: "IEND", data: []),
        ])
        let fast = try #require(try PNGDeflateDecoder.decode(split, options: ImageCreatingOptions()))
        #expect(fast.frame.pixels == Self.expectedRGBA(pixels, channels: 4))
    }

    @Test("files this path does not take are left to libpng")
    func declinedFiles() throws {
        let samples = (0..<(4 * 3 * 3)).map { UInt16($0 * 7 % 256) }
        let plain = PNGWriter.png(width: 4, height: 3, bitDepth: 8, colorType: .rgb, samples: samples)
        #expect(try PNGDeflateDecoder.decode(plain, options: ImageCreatingOptions()) != nil)

        let declined: [(String, Data)] = [
            ("interlaced", PNGWriter.png(width: 4, height: 3, bitDepth: 8, colorType: .rgb, samples: samples, interlaced: true)),
            ("16-bit", PNGWriter.png(width: 4, height: 3, bitDepth: 16, colorType: .rgb, samples: samples.map { $0 * 257 })),
            ("tRNS", PNGWriter.png(width: 4, height: 3, bitDepth: 8, colorType: .rgb, samples: samples,
                                   extraChunks: [PNGWriter.trns([0, 7, 0, 14, 0, 21])])),
            ("gamma 1.0", PNGWriter.png(width: 4, height: 3, bitDepth: 8, colorType: .rgb, samples: samples,
                                        extraChunks: [PNGWriter.gama(100_000)])),
        ]
        for (name, file) in declined {
            #expect(try PNGDeflateDecoder.decode(file, options: ImageCreatingOptions()) == nil, "\(name)")
            // libpng still decodes every one of them.
            let image = try KFCrossPlatformImage(data: file, options: ImageCreatingOptions())
            #expect(image.pixelWidth == 4 && image.pixelHeight == 3, "\(name)")
        }
        let srgbGamma = PNGWriter.png(width: 4, height: 3, bitDepth: 8, colorType: .rgb, samples: samples,
                                      extraChunks: [PNGWriter.gama(45_455)])
        #expect(try PNGDeflateDecoder.decode(srgbGamma, options: ImageCreatingOptions()) != nil)
    }

    @Test("a broken IDAT checksum is declined here and reported by libpng")
    func brokenChecksum() throws {
        let pixels = Self.card(width: 16, height: 16, channels: 3)
        var file = try pixels.withUnsafeBytes { try PNGDeflateEncoder.encode($0, width: 16, height: 16, channels: 3) }
        // The last byte of the IDAT chunk's CRC: IEND (12 bytes) follows it.
        file[file.count - 13] ^= 0xFF
        #expect(try PNGDeflateDecoder.decode(file, options: ImageCreatingOptions()) == nil)
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: file, options: ImageCreatingOptions()) }
    }

    @Test("image data that inflates short is declined here and reported by libpng")
    func shortImageData() throws {
        let samples = (0..<(8 * 8 * 3)).map { UInt16($0 % 256) }
        let full = PNGWriter.scanlines(width: 8, height: 8, bitDepth: 8, channels: 3, samples: samples, interlaced: false)
        let file = PNGWriter.file([
            PNGWriter.ihdr(width: 8, height: 8, bitDepth: 8, colorType: .rgb),
            PNGWriter.Chunk(type: "IDAT", data: PNGWriter.zlibStored(Array(full.prefix(full.count - 25)))),
            PNGWriter.Chunk(type: "IEND", data: []),
        ])
        #expect(try PNGDeflateDecoder.decode(file, options: ImageCreatingOptions()) == nil)
        #expect(throws: KingfisherError.self) { try KFCrossPlatformImage(data: file, options: ImageCreatingOptions()) }
    }

    @Test("the decoding limits apply on this path too")
    func limits() throws {
        let pixels = Self.card(width: 30, height: 30, channels: 3)
        let file = try pixels.withUnsafeBytes { try PNGDeflateEncoder.encode($0, width: 30, height: 30, channels: 3) }
        var options = ImageCreatingOptions()
        options.limits = ImageDecodingLimits(maxPixelsPerFrame: 100)
        #expect(throws: KingfisherError.self) { try PNGDeflateDecoder.decode(file, options: options) }
    }

    static func chunks(_ file: Data) -> [(type: String, data: [UInt8])] {
        let bytes = [UInt8](file)
        var offset = 8
        var result: [(String, [UInt8])] = []
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            result.append((type, Array(bytes[(offset + 8)..<(offset + 8 + length)])))
            offset += 12 + length
        }
        return result
    }

    static func chunkTypes(_ file: Data) -> [String] { chunks(file).map(\.type) }
}
