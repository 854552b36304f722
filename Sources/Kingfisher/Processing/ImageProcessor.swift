import Foundation

/// What a processor works on: encoded bytes not yet decoded, or an image.
public enum ImageProcessItem: Sendable {
    /// A decoded image.
    case image(KFCrossPlatformImage)
    /// Encoded bytes (PNG, JPEG, GIF or WebP).
    case data(Data)
}

/// A step that turns an ``ImageProcessItem`` into an image: decoding, resizing, rounding, blurring...
///
/// `identifier` must encode every parameter that changes the output, because the cache stores a
/// processed image under `key@identifier`; two processors with the same identifier must give the
/// same pixels. Return `nil` when the item cannot be processed. Processors that receive `.data`
/// usually decode it with ``DefaultImageProcessor`` first, then work on the image. Chain
/// processors with `|>` or ``append(another:)``.
public protocol ImageProcessor: Sendable {
    /// The stable description of this processor and all its parameters.
    var identifier: String { get }

    /// Processes `item`; `nil` when it cannot.
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?
}

extension ImageProcessor {
    /// A processor that runs `self`, then `another` on the result; its identifier is
    /// `"\(identifier)|>\(another.identifier)"`.
    public func append(another: any ImageProcessor) -> any ImageProcessor {
        let newIdentifier = identifier.appending("|>\(another.identifier)")
        return GeneralProcessor(identifier: newIdentifier) { item, options in
            guard let image = self.process(item: item, options: options) else { return nil }
            return another.process(item: .image(image), options: options)
        }
    }
}

/// Chains two processors: `left` runs first, then `right`. See ``ImageProcessor/append(another:)``.
public func |> (left: any ImageProcessor, right: any ImageProcessor) -> any ImageProcessor {
    left.append(another: right)
}

infix operator |>: AdditionPrecedence

/// A processor made of an identifier and a closure; what `|>` returns.
struct GeneralProcessor: ImageProcessor {
    let identifier: String
    let body: @Sendable (ImageProcessItem, KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?

    init(identifier: String, body: @escaping @Sendable (ImageProcessItem, KingfisherParsedOptionsInfo) -> KFCrossPlatformImage?) {
        self.identifier = identifier
        self.body = body
    }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        body(item, options)
    }
}

extension ImageProcessItem {
    /// The item as an image: `.image` as it is, `.data` decoded by ``DefaultImageProcessor``.
    /// Built-in processors start with this.
    func decodedImage(options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch self {
        case .image(let image): return image
        case .data: return DefaultImageProcessor.default.process(item: self, options: options)
        }
    }
}
