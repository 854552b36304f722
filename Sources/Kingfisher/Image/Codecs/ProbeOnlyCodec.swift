import Foundation

/// Helpers for the formats Kingfisher recognises and probes but cannot decode or encode yet
/// (AVIF, HEIC, JPEG XL).
extension ImageCodec {
    /// Reads the header of `data`, checks it against `options.limits` (so an over-limit image is
    /// refused as such), then throws: the format is recognised but not decodable yet.
    static func refuseDecoding(_ data: Data, options: ImageCreatingOptions) throws -> Never {
        let header = try probe(data)
        try options.limits.checkFrame(width: header.pixelWidth, height: header.pixelHeight, format: format)
        if header.frameCount > 1 {
            try options.limits.checkAnimation(frameCount: header.frameCount, width: header.pixelWidth,
                                              height: header.pixelHeight, format: format)
        }
        throw decodingError("\(format) is recognised (a \(header.pixelWidth)×\(header.pixelHeight) image) "
            + "but Kingfisher cannot decode \(format) yet")
    }

    /// The error for encoding a format Kingfisher cannot write yet.
    static var notEncodableYet: KingfisherError {
        encodingError("Kingfisher cannot encode \(format) yet")
    }
}
