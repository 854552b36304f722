import Foundation

/// GIF decoding and encoding over giflib.
///
/// - Decoding (``GIFDecoder``) walks giflib's records one by one so the limits are checked before
///   each allocation, and composites every frame onto a logical-screen-sized canvas.
/// - Probing (``GIFStructureScanner``) parses the block structure in Swift without decompressing.
/// - Encoding (``GIFEncoder``) quantizes each frame with ``ColorQuantizer`` and writes it with giflib.
///
/// Behaviour that follows Kingfisher (ImageIO) or browsers rather than the letter of the GIF spec:
/// - A frame's delay under 0.011 s, or a frame without a delay, shows for 0.1 s (Kingfisher's rule).
/// - The loop count is the NETSCAPE2.0 (or ANIMEXTS1.0) value as stored, 0 meaning forever, as
///   ImageIO reports `kCGImagePropertyGIFLoopCount`. Without that extension ImageIO reports no loop
///   count and browsers play the animation once, so the loop count is 1.
/// - "Restore to background" clears to transparent, as browsers do, whatever the background index.
/// - Data that ends after at least one complete frame gives the complete frames (browsers show
///   them too); data that ends before the first frame is complete is an error. An unknown block
///   after at least one frame ends the image, as in browsers; corrupt compressed data is an error.
enum GIFCodec: ImageCodec {
    static let format = ImageFormat.GIF

    static func probe(_ data: Data) throws -> ImageHeader {
        try GIFStructureScanner.probe(data)
    }

    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        try GIFDecoder.decode(data, options: options)
    }

    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        try GIFEncoder.encode(image)
    }

    /// The length of the header and global colour table: where the first record starts.
    static func headerLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard bytes.count >= 13 else { return bytes.count }
        let flags = bytes[10]
        return 13 + (flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0)
    }

    /// The default frame duration, and what any delay of 0.011 s or less becomes.
    static let defaultFrameDuration: TimeInterval = 0.1

    /// Kingfisher's delay rule: `centiseconds` from a Graphics Control Extension (`nil` when the
    /// frame has none) as seconds, with 0.1 s for a missing delay or one of 0.011 s or less.
    static func frameDuration(centiseconds: Int?) -> TimeInterval {
        guard let centiseconds, centiseconds > 0 else { return defaultFrameDuration }
        let seconds = TimeInterval(centiseconds) / 100
        return seconds > 0.011 ? seconds : defaultFrameDuration
    }

    /// The loop count of an animation without a NETSCAPE2.0 extension: it plays once.
    static let loopCountWithoutExtension = 1

    /// True when an application extension's identifier block (without its length byte) names the
    /// looping extension: `NETSCAPE2.0` or `ANIMEXTS1.0`.
    static func isLoopingExtension(_ identifier: UnsafeBufferPointer<UInt8>) -> Bool {
        guard identifier.count == 11 else { return false }
        return identifier.elementsEqual(netscapeIdentifier) || identifier.elementsEqual(animextsIdentifier)
    }

    /// The loop count from the data sub-block of a looping extension (without its length byte):
    /// sub-block id 1, then a little-endian 16-bit count; `nil` for any other sub-block.
    static func loopCount(fromSubBlock block: UnsafeBufferPointer<UInt8>) -> Int? {
        guard block.count >= 3, block[0] == 1 else { return nil }
        return Int(block[1]) | Int(block[2]) << 8
    }

    static let netscapeIdentifier: [UInt8] = Array("NETSCAPE2.0".utf8)
    private static let animextsIdentifier: [UInt8] = Array("ANIMEXTS1.0".utf8)
}
