import Foundation

/// The processor every image meets first: decodes `.data`, and gives `.image` the requested scale.
///
/// Its identifier is the empty string, so images it makes are cached under the bare key.
public struct DefaultImageProcessor: ImageProcessor {
    /// The shared instance.
    public static let `default` = DefaultImageProcessor()

    /// `""`.
    public let identifier = ""

    /// Makes the default processor; prefer ``default``.
    public init() {}

    /// Decodes `.data` with `options.scaleFactor`, `onlyLoadFirstFrame` and the decoding limits;
    /// returns `.image` at `options.scaleFactor`. `nil` when the data does not decode.
    public func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch item {
        case .image(let image):
            return image.scale == options.scaleFactor ? image : image.withScale(options.scaleFactor)
        case .data(let data):
            return try? KFCrossPlatformImage(data: data, options: options.imageCreatingOptions)
        }
    }
}
