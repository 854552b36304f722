import Foundation

/// Writes APNG files by hand on top of ``PNGWriter``, as chunk lists a test can damage before
/// joining them with `PNGWriter.file`.
///
/// Frames are 8-bit RGBA (straight alpha) unless a palette is given, stored uncompressed.
enum APNGWriter {
    /// One frame: its fcTL fields and its samples (`width * height * 4` straight RGBA bytes, or
    /// `width * height` palette indices when the file has a palette).
    struct Frame {
        var width: Int
        var height: Int
        var x = 0
        var y = 0
        var delayNumerator: UInt16 = 10
        var delayDenominator: UInt16 = 100
        var dispose: UInt8 = 0
        var blend: UInt8 = 0
        var samples: [UInt8]

        /// A frame of one straight RGBA colour.
        static func solid(_ width: Int, _ height: Int, x: Int = 0, y: Int = 0, rgba: [UInt8],
                          dispose: UInt8 = 0, blend: UInt8 = 0, delay: (UInt16, UInt16) = (10, 100)) -> Frame {
            Frame(width: width, height: height, x: x, y: y, delayNumerator: delay.0, delayDenominator: delay.1,
                  dispose: dispose, blend: blend, samples: Array([[UInt8]](repeating: rgba, count: width * height).joined()))
        }
    }

    /// The chunks of an APNG of `frames` on a `width`×`height` canvas, playing `plays` times.
    ///
    /// Without `defaultImage` the first frame is the IDAT image (its fcTL comes first); with one,
    /// `defaultImage` (a full-canvas frame) is the IDAT image outside the animation and every frame
    /// goes into fdAT chunks. `palette` (RGB entries, with `paletteAlpha` as tRNS) makes a colour
    /// type 3 file whose frames hold indices. `extraChunks` go before the acTL.
    static func chunks(width: Int, height: Int, frames: [Frame], plays: UInt32 = 0, defaultImage: Frame? = nil,
                       palette: [(UInt8, UInt8, UInt8)]? = nil, paletteAlpha: [UInt8]? = nil,
                       extraChunks: [PNGWriter.Chunk] = []) -> [PNGWriter.Chunk] {
        let colorType: PNGWriter.ColorType = palette == nil ? .rgba : .palette
        var chunks = [PNGWriter.ihdr(width: UInt32(width), height: UInt32(height), bitDepth: 8, colorType: colorType)]
        if let palette { chunks.append(PNGWriter.plte(palette)) }
        if let paletteAlpha { chunks.append(PNGWriter.trns(paletteAlpha)) }
        chunks += extraChunks
        chunks.append(PNGWriter.Chunk(type: "acTL", data: PNGWriter.bigEndian32(UInt32(frames.count)) + PNGWriter.bigEndian32(plays)))
        var sequence: UInt32 = 0
        func next() -> [UInt8] {
            defer { sequence += 1 }
            return PNGWriter.bigEndian32(sequence)
        }
        for (index, frame) in frames.enumerated() {
            let data = zlib(frame, channels: colorType.channels)
            if index == 0, defaultImage == nil {
                chunks.append(fcTL(frame, sequence: next()))
                chunks.append(PNGWriter.Chunk(type: "IDAT", data: data))
                continue
            }
            if index == 0, let defaultImage {
                chunks.append(PNGWriter.Chunk(type: "IDAT", data: zlib(defaultImage, channels: colorType.channels)))
            }
            chunks.append(fcTL(frame, sequence: next()))
            chunks.append(PNGWriter.Chunk(type: "fdAT", data: next() + data))
        }
        chunks.append(PNGWriter.Chunk(type: "IEND", data: []))
        return chunks
    }

    /// The whole file for the same arguments as ``chunks(width:height:frames:plays:defaultImage:palette:paletteAlpha:extraChunks:)``.
    static func apng(width: Int, height: Int, frames: [Frame], plays: UInt32 = 0, defaultImage: Frame? = nil,
                     palette: [(UInt8, UInt8, UInt8)]? = nil, paletteAlpha: [UInt8]? = nil,
                     extraChunks: [PNGWriter.Chunk] = []) -> Data {
        PNGWriter.file(chunks(width: width, height: height, frames: frames, plays: plays, defaultImage: defaultImage,
                              palette: palette, paletteAlpha: paletteAlpha, extraChunks: extraChunks))
    }

    static func fcTL(_ frame: Frame, sequence: [UInt8]) -> PNGWriter.Chunk {
        PNGWriter.Chunk(type: "fcTL", data: sequence
            + PNGWriter.bigEndian32(UInt32(frame.width)) + PNGWriter.bigEndian32(UInt32(frame.height))
            + PNGWriter.bigEndian32(UInt32(frame.x)) + PNGWriter.bigEndian32(UInt32(frame.y))
            + PNGWriter.bigEndian16(frame.delayNumerator) + PNGWriter.bigEndian16(frame.delayDenominator)
            + [frame.dispose, frame.blend])
    }

    private static func zlib(_ frame: Frame, channels: Int) -> [UInt8] {
        PNGWriter.zlibStored(PNGWriter.scanlines(width: frame.width, height: frame.height, bitDepth: 8, channels: channels,
                                                 samples: frame.samples.map(UInt16.init), interlaced: false))
    }
}
