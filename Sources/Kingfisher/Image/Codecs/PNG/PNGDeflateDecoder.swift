import CLibDeflate
import Foundation

/// The fast path of PNG decoding: the common still PNG inflated in one call by libdeflate and
/// unfiltered here, in about half the time libpng's streaming read takes.
///
/// It takes 8-bit grey, grey and alpha, RGB and RGBA that is not interlaced, has no `tRNS` chunk and
/// has sRGB's gamma or none, which libpng's simplified API would hand over byte for byte. Any other
/// file, or one whose header or image data checksum is wrong, whose image data is not consecutive,
/// uses an unknown filter or inflates to more or fewer bytes than its rows, gets `nil`: libpng then
/// decodes it and reports what is wrong in its own words.
enum PNGDeflateDecoder {
    /// The part of a PNG's chunk walk this path needs.
    struct Layout: Equatable {
        let width: Int
        let height: Int
        /// Samples per pixel: 1 grey, 2 grey and alpha, 3 RGB, 4 RGBA.
        let channels: Int
        /// Where the data of each `IDAT` chunk lies, in order.
        let imageData: [Range<Int>]
        /// Whether an `iCCP` chunk comes before the image data.
        var hasProfile = false
    }

    /// The pixels of `data` as straight RGBA converted to sRGB (unless `options` keeps the source's
    /// colours), premultiplied, and whether they are all opaque; `nil` when this path does not take
    /// the file (see ``PNGDeflateDecoder``).
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> (frame: ImageFrame, opaque: Bool)? {
        let decoded = try data.withUnsafeBytes { bytes -> (pixels: [UInt8], layout: Layout)? in
            guard let layout = layout(of: bytes) else { return nil }
            try options.limits.checkFrame(width: layout.width, height: layout.height, format: .PNG)
            let (rowLength, rowOverflow) = layout.width.multipliedReportingOverflow(by: layout.channels)
            let (rawCount, rawOverflow) = (rowLength + 1).multipliedReportingOverflow(by: layout.height)
            let (outputRow, outputRowOverflow) = layout.width.multipliedReportingOverflow(by: 4)
            let (outputCount, outputOverflow) = outputRow.multipliedReportingOverflow(by: layout.height)
            guard !rowOverflow, !rawOverflow, !outputRowOverflow, !outputOverflow else { return nil }

            let raw = PixelMemory.scratch(count: rawCount)
            defer { raw.deallocate() }
            guard inflate(bytes, ranges: layout.imageData, into: raw) else { return nil }
            var complete = true
            let pixels = PixelMemory.bytes(count: outputCount) { output in
                guard let target = output.baseAddress, let source = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    complete = false
                    return
                }
                complete = reconstruct(source, rowLength: rowLength, layout: layout, into: target)
            }
            return complete ? (pixels, layout) : nil
        }
        guard let (pixels, layout) = decoded else { return nil }
        var frame = pixels
        // The walk above has seen whether there is a profile: only then does libpng read it.
        let profile = options.keepsSourceColors || !layout.hasProfile ? nil : PNGCodec.iccProfile(data)
        var opaque = layout.channels == 1 || layout.channels == 3
        try frame.withUnsafeMutableBytes { output in
            try ColorManagement.convertToSRGB(output, width: layout.width, height: layout.height, from: profile, options: options)
            if !opaque { opaque = PixelConversion.premultiply(output) }
        }
        return (ImageFrame(unchecked: layout.width, height: layout.height, pixels: frame), opaque)
    }

    /// The layout of `bytes` when this path takes the file, else `nil`.
    static func layout(of bytes: UnsafeRawBufferPointer) -> Layout? {
        guard bytes.count >= 8 + 25, bytes.starts(with: PNGChunkFormat.signature) else { return nil }
        var offset = 8
        var header: (width: Int, height: Int, channels: Int)?
        var imageData: [Range<Int>] = []
        var imageDataEnded = false
        var hasProfile = false
        walk: while bytes.count - offset >= 12 {
            let length = PNGChunkFormat.u32(bytes, offset)
            let type = PNGChunkFormat.u32(bytes, offset + 4)
            let dataStart = offset + 8
            guard length <= bytes.count - dataStart - 4 else { return nil }
            let dataEnd = dataStart + length
            switch type {
            case ChunkType.header:
                guard offset == 8, length == 13, checksumMatches(bytes, chunkAt: offset, length: length),
                      let fields = headerFields(bytes, at: dataStart)
                else { return nil }
                header = fields
            case ChunkType.imageData:
                guard header != nil, !imageDataEnded, checksumMatches(bytes, chunkAt: offset, length: length) else { return nil }
                imageData.append(dataStart..<dataEnd)
            case ChunkType.end:
                break walk
            case ChunkType.profile:
                if imageData.isEmpty { hasProfile = true }
            case ChunkType.transparency, ChunkType.animationControl, ChunkType.frameControl, ChunkType.frameData:
                return nil
            case ChunkType.gamma:
                // 1/2.2 as PNG writes it: sRGB's curve, which libpng leaves alone.
                guard length == 4, PNGChunkFormat.u32(bytes, dataStart) == 45455 else { return nil }
            default:
                break
            }
            if type != ChunkType.imageData, !imageData.isEmpty { imageDataEnded = true }
            offset = dataEnd + 4
        }
        guard let header, !imageData.isEmpty else { return nil }
        return Layout(width: header.width, height: header.height, channels: header.channels, imageData: imageData,
                      hasProfile: hasProfile)
    }

    /// The big-endian chunk types this path looks at.
    private enum ChunkType {
        static let header = 0x4948_4452           // IHDR
        static let imageData = 0x4944_4154        // IDAT
        static let end = 0x4945_4E44              // IEND
        static let transparency = 0x7452_4E53     // tRNS
        static let gamma = 0x6741_4D41            // gAMA
        static let profile = 0x6943_4350          // iCCP
        static let animationControl = 0x6163_544C // acTL
        static let frameControl = 0x6663_544C     // fcTL
        static let frameData = 0x6664_4154        // fdAT
    }

    /// Width, height and samples per pixel of an IHDR this path takes: 8 bits a sample, grey (0),
    /// RGB (2), grey and alpha (4) or RGBA (6), the standard compression and filter methods, no
    /// interlace.
    private static func headerFields(_ bytes: UnsafeRawBufferPointer, at start: Int) -> (width: Int, height: Int, channels: Int)? {
        let width = PNGChunkFormat.u32(bytes, start)
        let height = PNGChunkFormat.u32(bytes, start + 4)
        let channels: Int
        switch bytes[start + 9] {
        case 0: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max), bytes[start + 8] == 8,
              bytes[start + 10] == 0, bytes[start + 11] == 0, bytes[start + 12] == 0
        else { return nil }
        return (width, height, channels)
    }

    /// Whether the CRC after the chunk at `offset` matches its type and data.
    private static func checksumMatches(_ bytes: UnsafeRawBufferPointer, chunkAt offset: Int, length: Int) -> Bool {
        PNGChunkFormat.checksum(UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + 8 + length)]))
            == UInt32(truncatingIfNeeded: PNGChunkFormat.u32(bytes, offset + 8 + length))
    }

    /// Inflates the zlib stream split over `ranges` of `bytes` into `output`, which it must fill exactly.
    private static func inflate(_ bytes: UnsafeRawBufferPointer, ranges: [Range<Int>], into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard let decompressor = libdeflate_alloc_decompressor(), let base = bytes.baseAddress else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        let inflateAll = { (input: UnsafeRawPointer, count: Int) -> Bool in
            libdeflate_zlib_decompress(decompressor, input, count, output.baseAddress, output.count, nil) == LIBDEFLATE_SUCCESS
        }
        if ranges.count == 1, let only = ranges.first {
            return inflateAll(base + only.lowerBound, only.count)
        }
        let total = ranges.reduce(0) { $0 + $1.count }
        let joined = UnsafeMutableRawBufferPointer.allocate(byteCount: max(total, 1), alignment: 16)
        defer { joined.deallocate() }
        guard let joinedBase = joined.baseAddress else { return false }
        var written = 0
        for range in ranges {
            (joinedBase + written).copyMemory(from: base + range.lowerBound, byteCount: range.count)
            written += range.count
        }
        return inflateAll(UnsafeRawPointer(joinedBase), total)
    }

    /// Undoes the row filters of `raw` (rows of a filter type and `rowLength` bytes) and writes the
    /// rows into `output` as straight RGBA8; false when a row names an unknown filter.
    ///
    /// Colour rows are undone straight into `output`, reading the row above from it; grey rows are
    /// undone in place in `raw`, then spread.
    private static func reconstruct(_ raw: UnsafeMutablePointer<UInt8>, rowLength: Int, layout: Layout,
                                    into output: UnsafeMutablePointer<UInt8>) -> Bool {
        let outputRow = layout.width &* 4
        var previous: UnsafePointer<UInt8>?
        for y in 0..<layout.height {
            let line = raw + y &* (rowLength &+ 1)
            let row = line + 1
            let target = output + y &* outputRow
            if layout.channels >= 3 {
                let above = y == 0 ? nil : UnsafePointer(target - outputRow)
                guard PNGRowFilters.unfilterPixels(line[0], row: row, bpp: layout.channels, width: layout.width,
                                                   above: above, output: target) else { return false }
                continue
            }
            guard PNGRowFilters.unfilter(line[0], row: row, previous: previous, count: rowLength, bpp: layout.channels) else {
                return false
            }
            expandGrey(row, width: layout.width, channels: layout.channels, into: target)
            previous = UnsafePointer(row)
        }
        return true
    }

    /// One row of grey (`channels` 1) or grey and alpha (2) as RGBA8: grey spread to red, green
    /// and blue, alpha 255 where the file has none.
    private static func expandGrey(_ row: UnsafePointer<UInt8>, width: Int, channels: Int, into output: UnsafeMutablePointer<UInt8>) {
        var source = 0
        var target = 0
        for _ in 0..<width {
            let grey = row[source]
            output[target] = grey
            output[target &+ 1] = grey
            output[target &+ 2] = grey
            output[target &+ 3] = channels == 2 ? row[source &+ 1] : 255
            source &+= channels
            target &+= 4
        }
    }
}
