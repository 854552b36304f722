import Foundation

/// AVIF: header probe only (see ``ISOBMFFProbe``); decoding and encoding throw.
enum AVIFCodec: ProbeOnlyCodec {
    static let format = ImageFormat.AVIF

    static func probe(_ data: Data) throws -> ImageHeader { try ISOBMFFProbe.probe(data, format: format) }
}
