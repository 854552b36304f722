import Foundation

/// HEIC (HEIF with HEVC): header probe only (see ``ISOBMFFProbe``); decoding and encoding throw.
enum HEICCodec: ProbeOnlyCodec {
    static let format = ImageFormat.HEIC

    static func probe(_ data: Data) throws -> ImageHeader { try ISOBMFFProbe.probe(data, format: format) }
}
