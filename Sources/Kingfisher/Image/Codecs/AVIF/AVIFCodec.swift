import Foundation

/// AVIF decoding and encoding over libavif 0.11 (`libavif.so.15`, opened on first use).
///
/// - Still images and image sequences decode to upright, premultiplied sRGB frames: any bit depth
///   (8, 10, 12) is converted to 8-bit RGBA by libavif, alpha is kept, the colour profile (ICC, or
///   CICP code points) is converted to sRGB, and `clap`, `irot` and `imir` are applied once (see
///   ``AVIFTransform``). The header reported by ``probe(_:)`` gives the stored size and the
///   orientation those properties amount to; the decoded image is already upright.
/// - `options.limits` is checked from the parsed container before any pixel is allocated.
/// - `options.minimumPixelSize` is ignored: libavif cannot scale while decoding, so images always
///   decode at full size.
/// - Sequences decode lazily through ``AVIFFrameSource`` when `options.preloadAllFrames` is off.
/// - Encoding writes 8-bit YUV 4:2:0 with libavif's default AV1 encoder (see `AVIFEncoder.swift`).
///
/// The work is spread over this folder: `AVIFLibrary.swift` (the function table),
/// `AVIFDecoder.swift` (parsing and one frame), `AVIFTransform.swift`, `AVIFSequence.swift` and
/// `AVIFEncoder.swift`.
enum AVIFCodec: ImageCodec {
    static let format = ImageFormat.AVIF

    /// Reads size, orientation, alpha and frame count from the ISO-BMFF boxes (see ``ISOBMFFProbe``).
    static func probe(_ data: Data) throws -> ImageHeader { try ISOBMFFProbe.probe(data, format: format) }

    /// Decodes a still image, or every frame of a sequence (only the first with
    /// `options.onlyFirstFrame`; the first now and the rest on demand without
    /// `options.preloadAllFrames`).
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        let session = try AVIFDecodingSession(data: data, options: options)
        if session.frameCount > 1, !options.onlyFirstFrame {
            return try decodeSequence(session, data: data, options: options)
        }
        let (frame, opaque) = try session.frame(at: 0)
        var image = KFCrossPlatformImage(validated: [frame], loopCount: 0, scale: options.scale, isOpaque: opaque)
        if session.frameCount > 1 { image.animatedImageData = data }
        return image
    }
}
