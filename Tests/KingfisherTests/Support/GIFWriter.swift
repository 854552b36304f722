import Foundation

/// A small GIF writer for tests, independent of giflib (its own LZW encoder), that writes exactly
/// the structure it is given: frames at offsets, outside the screen, interlaced, with or without
/// colour tables and Graphics Control Extensions, with raw compressed data, without a trailer.
struct GIFWriter {
    /// A palette colour.
    struct Color: Equatable {
        var r: UInt8
        var g: UInt8
        var b: UInt8
    }

    /// The Graphics Control Extension of a frame.
    struct Control {
        var disposal = 0
        var delay = 0
        var transparentIndex: Int?
    }

    /// One image descriptor and its data.
    struct Frame {
        var left = 0
        var top = 0
        var width: Int
        var height: Int
        /// Palette indices, row by row in display order (the writer interlaces them if asked).
        var indices: [UInt8]
        var localPalette: [Color]?
        var interlaced = false
        var control: Control?
        /// When set, written instead of the LZW data: the code size byte and the sub-blocks.
        var rawImageData: [UInt8]?

        /// A frame of one palette index.
        static func filled(_ index: UInt8, left: Int = 0, top: Int = 0, width: Int, height: Int, control: Control? = nil) -> Frame {
            Frame(left: left, top: top, width: width, height: height,
                  indices: [UInt8](repeating: index, count: width * height), control: control)
        }
    }

    var width: Int
    var height: Int
    var globalPalette: [Color]?
    /// Written as a looping application extension when set.
    var loopCount: Int?
    var loopIdentifier = "NETSCAPE2.0"
    var frames: [Frame] = []
    var trailer = true

    /// The file's bytes.
    func data() -> Data {
        var out: [UInt8] = Array("GIF89a".utf8)
        out += Self.word(width) + Self.word(height)
        if let globalPalette {
            let bits = Self.tableBits(globalPalette.count)
            out += [0x80 | 0x70 | UInt8(bits - 1), 0, 0]
            out += Self.table(globalPalette, bits: bits)
        } else {
            out += [0x70, 0, 0]
        }
        if let loopCount {
            out += [0x21, 0xFF, 11] + Array(loopIdentifier.utf8) + [3, 1] + Self.word(loopCount) + [0]
        }
        for frame in frames {
            if let control = frame.control {
                let flags = UInt8((control.disposal & 7) << 2) | (control.transparentIndex == nil ? 0 : 1)
                out += [0x21, 0xF9, 4, flags] + Self.word(control.delay) + [UInt8(control.transparentIndex ?? 0), 0]
            }
            out += [0x2C] + Self.word(frame.left) + Self.word(frame.top) + Self.word(frame.width) + Self.word(frame.height)
            var flags: UInt8 = frame.interlaced ? 0x40 : 0
            let paletteCount = frame.localPalette?.count ?? globalPalette?.count ?? 2
            if let local = frame.localPalette {
                let bits = Self.tableBits(local.count)
                flags |= 0x80 | UInt8(bits - 1)
                out.append(flags)
                out += Self.table(local, bits: bits)
            } else {
                out.append(flags)
            }
            if let raw = frame.rawImageData {
                out += raw
            } else {
                let rows = frame.interlaced ? Self.interlaced(frame.indices, width: frame.width, height: frame.height) : frame.indices
                let codeSize = max(2, Self.tableBits(paletteCount))
                out.append(UInt8(codeSize))
                out += Self.subBlocks(Self.lzw(rows, minimumCodeSize: codeSize))
            }
        }
        if trailer { out.append(0x3B) }
        return Data(out)
    }

    static func word(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)]
    }

    /// Bits per entry of a colour table holding `count` colours (1...8).
    static func tableBits(_ count: Int) -> Int {
        var bits = 1
        while 1 << bits < count, bits < 8 { bits += 1 }
        return bits
    }

    static func table(_ colors: [Color], bits: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<(1 << bits) {
            let color = index < colors.count ? colors[index] : Color(r: 0, g: 0, b: 0)
            bytes += [color.r, color.g, color.b]
        }
        return bytes
    }

    /// `bytes` as data sub-blocks of at most 255 bytes, then the terminator.
    static func subBlocks(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + 255, bytes.count)
            out.append(UInt8(end - start))
            out += bytes[start..<end]
            start = end
        }
        out.append(0)
        return out
    }

    /// Rows reordered as an interlaced GIF stores them.
    static func interlaced(_ indices: [UInt8], width: Int, height: Int) -> [UInt8] {
        var out: [UInt8] = []
        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
            for row in stride(from: start, to: height, by: step) {
                out += indices[(row * width)..<((row + 1) * width)]
            }
        }
        return out
    }

    /// GIF's LZW: variable-width codes packed least significant bit first, a clear code first,
    /// widths growing as the table fills, a clear code when it reaches 4095 entries.
    static func lzw(_ indices: [UInt8], minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize
        let end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = end + 1
        var table: [Int: Int] = [:]
        var output: [UInt8] = []
        var buffer = 0
        var bufferBits = 0
        func emit(_ code: Int) {
            buffer |= code << bufferBits
            bufferBits += codeSize
            while bufferBits >= 8 {
                output.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                bufferBits -= 8
            }
        }
        emit(clear)
        if var prefix = indices.first.map(Int.init) {
            for byte in indices.dropFirst() {
                let key = prefix << 8 | Int(byte)
                if let code = table[key] {
                    prefix = code
                    continue
                }
                emit(prefix)
                table[key] = next
                next += 1
                if next > 1 << codeSize, codeSize < 12 { codeSize += 1 }
                if next == 4096 {
                    emit(clear)
                    table = [:]
                    codeSize = minimumCodeSize + 1
                    next = end + 1
                }
                prefix = Int(byte)
            }
            emit(prefix)
            // The decoder adds a table entry after this code too, and may widen before the end code.
            if next >= 1 << codeSize, codeSize < 12 { codeSize += 1 }
        }
        emit(end)
        if bufferBits > 0 { output.append(UInt8(buffer & 0xFF)) }
        return output
    }
}
