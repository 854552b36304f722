import Foundation

/// Reads a GIF's header by walking its block structure in Swift, stepping over the compressed
/// pixel data without decoding it.
///
/// Counts frames as the decoder keeps them: only frames whose data is complete, stopping at the
/// trailer, at the end of the data, or at a byte that starts no block.
struct GIFStructureScanner {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The header of `data`, which starts with `GIF87a` or `GIF89a`.
    static func probe(_ data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { bytes in
            var scanner = GIFStructureScanner(bytes: bytes)
            return try scanner.scan()
        }
    }

    private mutating func scan() throws -> ImageHeader {
        // Signature (6), then the logical screen descriptor (7).
        guard bytes.count >= 13 else {
            throw GIFCodec.decodingError("the data ends inside the logical screen descriptor")
        }
        let width = word(at: 6)
        let height = word(at: 8)
        let screenFlags = bytes[10]
        guard width > 0, height > 0 else {
            throw GIFCodec.decodingError("the logical screen is \(width)×\(height) pixels")
        }
        offset = 13
        if screenFlags & 0x80 != 0 {
            offset += Self.colorTableSize(flags: screenFlags)
        }

        var frameCount = 0
        var loopCount: Int?
        var hasAlpha = false
        // The disposal the last Graphics Control Extension set for the next frame, and the one of
        // the frame before: "restore to background" leaves a transparent hole.
        var nextDisposal = 0
        var previousDisposal = 0
        // The delay of the last Graphics Control Extension, for the next frame.
        var nextDelay: Int?
        var durations: [TimeInterval] = []
        blocks: while offset < bytes.count {
            let introducer = bytes[offset]
            offset += 1
            switch introducer {
            case 0x2C:
                guard let frame = skipImage() else { break blocks }
                if frameCount == 0, frame.left > 0 || frame.top > 0 || frame.left + frame.width < width || frame.top + frame.height < height {
                    // The screen outside the first frame stays transparent.
                    hasAlpha = true
                }
                if previousDisposal == 2 { hasAlpha = true }
                previousDisposal = nextDisposal
                nextDisposal = 0
                durations.append(GIFCodec.frameDuration(centiseconds: nextDelay))
                nextDelay = nil
                frameCount += 1
            case 0x21:
                guard offset < bytes.count else { break blocks }
                let label = bytes[offset]
                offset += 1
                guard let first = subBlock() else { break blocks }
                if label == 0xF9, first.count >= 4 {
                    if first[0] & 0x01 != 0 { hasAlpha = true }
                    nextDisposal = Int(first[0] >> 2) & 0x07
                    nextDelay = Int(first[1]) | Int(first[2]) << 8
                } else if label == 0xFF, GIFCodec.isLoopingExtension(first) {
                    guard let second = subBlock() else { break blocks }
                    if loopCount == nil, let count = GIFCodec.loopCount(fromSubBlock: second) { loopCount = count }
                    // An empty second sub-block was the terminator.
                    if second.isEmpty { continue }
                }
                if !first.isEmpty, !skipSubBlocks() { break blocks }
            default:
                // The trailer (0x3B), or a byte that starts no block: the image ends here.
                break blocks
            }
        }
        guard frameCount > 0 else {
            throw GIFCodec.decodingError("the data holds no complete image")
        }
        var header = ImageHeader(format: .GIF, pixelWidth: width, pixelHeight: height, frameCount: frameCount,
                                 loopCount: frameCount > 1 ? loopCount ?? GIFCodec.loopCountWithoutExtension : 0,
                                 hasAlpha: hasAlpha)
        if frameCount > 1 { header.frameDurations = durations }
        return header
    }

    /// Steps over an image descriptor (after its introducer), its colour table and its compressed
    /// data; `nil` when the data ends first.
    private mutating func skipImage() -> (left: Int, top: Int, width: Int, height: Int)? {
        guard bytes.count - offset >= 10 else { return nil }
        let frame = (left: word(at: offset), top: word(at: offset + 2), width: word(at: offset + 4), height: word(at: offset + 6))
        let flags = bytes[offset + 8]
        offset += 9
        if flags & 0x80 != 0 {
            offset += Self.colorTableSize(flags: flags)
        }
        // The LZW minimum code size, then the data sub-blocks.
        offset += 1
        guard offset <= bytes.count, skipSubBlocks() else { return nil }
        return frame
    }

    /// Reads one sub-block and returns its bytes (empty for the terminator); `nil` when the data
    /// ends first.
    private mutating func subBlock() -> UnsafeBufferPointer<UInt8>? {
        guard offset < bytes.count else { return nil }
        let length = Int(bytes[offset])
        offset += 1
        guard bytes.count - offset >= length else { return nil }
        let start = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + offset }
        offset += length
        return UnsafeBufferPointer(start: start, count: length)
    }

    /// Steps over sub-blocks up to and including the terminator; false when the data ends first.
    private mutating func skipSubBlocks() -> Bool {
        while offset < bytes.count {
            let length = Int(bytes[offset])
            offset += 1 + length
            if length == 0 { return true }
        }
        return false
    }

    private func word(at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8
    }

    /// Bytes in the colour table that `flags` (of a screen or image descriptor) announce.
    private static func colorTableSize(flags: UInt8) -> Int {
        3 << (Int(flags & 0x07) + 1)
    }
}
