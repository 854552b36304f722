import Foundation

/// One image format's decoder, encoder and header probe.
///
/// Every function reports failure only by throwing ``KingfisherError``; none may trap on any input.
protocol ImageCodec {
    /// The format this codec reads and writes.
    static var format: ImageFormat { get }
    /// Reads the header of `data`, which starts with this format's magic bytes.
    static func probe(_ data: Data) throws -> ImageHeader
    /// Decodes `data`, which starts with this format's magic bytes.
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage
    /// Encodes `image` in this format.
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data
}

extension ImageCodec {
    static func decodingError(_ description: String) -> KingfisherError {
        .processorError(reason: .decodingFailed(format: format, description: description))
    }

    static func encodingError(_ description: String) -> KingfisherError {
        .processorError(reason: .encodingFailed(format: format, description: description))
    }
}

/// Finds the codec for some data or format and runs it.
enum ImageCodecs {
    static func codec(for format: ImageFormat) -> (any ImageCodec.Type)? {
        switch format {
        case .JPEG: return JPEGCodec.self
        case .PNG: return PNGCodec.self
        case .GIF: return GIFCodec.self
        case .WebP: return WebPCodec.self
        case .AVIF: return AVIFCodec.self
        case .HEIC: return HEICCodec.self
        case .JXL: return JXLCodec.self
        case .unknown: return nil
        }
    }

    static func codec(forData data: Data) throws -> any ImageCodec.Type {
        guard !data.isEmpty else {
            throw KingfisherError.processorError(reason: .emptyImageData)
        }
        guard let codec = codec(for: ImageFormat(data: data)) else {
            throw KingfisherError.processorError(reason: .unknownImageFormat(header: Data(data.prefix(16))))
        }
        return codec
    }

    static func probe(_ data: Data) throws -> ImageHeader {
        try DecodeFailure.recording { try codec(forData: data).probe(data) }
    }

    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        try DecodeFailure.recording { try codec(forData: data).decode(data, options: options) }
    }

    static func encode(_ image: KFCrossPlatformImage, as format: ImageFormat, options: ImageEncodingOptions) throws -> Data {
        guard let codec = codec(for: format) else {
            throw KingfisherError.processorError(reason: .encodingFailed(format: format, description: "there is no encoder for it"))
        }
        return try codec.encode(image, options: options)
    }
}
