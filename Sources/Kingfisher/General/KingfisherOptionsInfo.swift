import Foundation

/// Options for one request, as a list; when an item appears twice, the last one wins.
public typealias KingfisherOptionsInfo = [KingfisherOptionsInfoItem]

/// One option of a request.
///
/// The items that image processing needs are here now; the cache, downloader and manager add
/// theirs as they arrive.
public enum KingfisherOptionsInfoItem: Sendable {
    /// Decode and process at this scale (pixels per point). Default 1.
    case scaleFactor(CGFloat)
    /// Decode only the first frame of an animation.
    case onlyLoadFirstFrame
    /// The processor applied to downloaded or provided data. Default ``DefaultImageProcessor``.
    case processor(any ImageProcessor)
    /// How images become bytes for the disk cache. Default ``DefaultCacheSerializer``.
    case cacheSerializer(any CacheSerializer)
    /// Applied to the image after it leaves the cache, every time; never cached.
    case imageModifier(any ImageModifier)
    /// The decoding limits (not in Kingfisher): pixels per frame, frames, pixels per animation.
    case decodingLimits(ImageDecodingLimits)
}

/// The parsed form of ``KingfisherOptionsInfo`` that processors, serializers and modifiers read.
public struct KingfisherParsedOptionsInfo: Sendable {
    /// Pixels per point of decoded and processed images.
    public var scaleFactor: CGFloat = 1
    /// Decode only the first frame of animations.
    public var onlyLoadFirstFrame = false
    /// The processor of the request.
    public var processor: any ImageProcessor = DefaultImageProcessor.default
    /// The serializer for the disk cache.
    public var cacheSerializer: any CacheSerializer = DefaultCacheSerializer.default
    /// The modifier applied after the cache.
    public var imageModifier: (any ImageModifier)?
    /// Decoding limits.
    public var decodingLimits: ImageDecodingLimits = .default

    /// Parses `info`; `nil` gives the defaults.
    public init(_ info: KingfisherOptionsInfo?) {
        for item in info ?? [] {
            switch item {
            case .scaleFactor(let value): scaleFactor = value.isFinite && value > 0 ? value : 1
            case .onlyLoadFirstFrame: onlyLoadFirstFrame = true
            case .processor(let value): processor = value
            case .cacheSerializer(let value): cacheSerializer = value
            case .imageModifier(let value): imageModifier = value
            case .decodingLimits(let value): decodingLimits = value
            }
        }
    }

    /// The decoding options these options imply.
    public var imageCreatingOptions: ImageCreatingOptions {
        ImageCreatingOptions(scale: scaleFactor, onlyFirstFrame: onlyLoadFirstFrame, limits: decodingLimits)
    }
}
