import Foundation

/// A codec for a format Kingfisher recognises and probes but cannot decode or encode yet (AVIF,
/// HEIC, JPEG XL): a conforming type implements ``ImageCodec/probe(_:)`` only.
protocol ProbeOnlyCodec: ImageCodec {}

extension ProbeOnlyCodec {
    /// Reads the header of `data`, checks it against `options.limits` (so an over-limit image is
    /// refused as such), then throws: the format is recognised but not decodable yet.
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        let header = try probe(data)
        try options.limits.checkFrame(width: header.pixelWidth, height: header.pixelHeight, format: format)
        if header.frameCount > 1 {
            try options.limits.checkAnimation(frameCount: header.frameCount, width: header.pixelWidth,
                                              height: header.pixelHeight, format: format)
        }
        throw decodingError("\(format) is recognised (a \(header.pixelWidth)×\(header.pixelHeight) image) "
            + "but Kingfisher cannot decode \(format) yet")
    }

    /// Throws: Kingfisher cannot write the format yet.
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        throw encodingError("Kingfisher cannot encode \(format) yet")
    }
}
