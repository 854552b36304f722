import Foundation

/// GIF decoding and encoding.
enum GIFCodec: ImageCodec {
    static let format = ImageFormat.GIF

    static func probe(_ data: Data) throws -> ImageHeader {
        throw decodingError("not built yet")
    }

    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        throw decodingError("not built yet")
    }

    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        throw encodingError("not built yet")
    }
}
