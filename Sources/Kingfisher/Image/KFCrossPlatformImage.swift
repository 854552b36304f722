import Foundation

/// The image type of Kingfisher on Linux, standing where `UIImage` or `NSImage` stands on Apple platforms.
///
/// An immutable value: one or more ``ImageFrame``s of 8-bit premultiplied RGBA in sRGB, a `scale`
/// that turns pixels into points (so `size` means what it means in Kingfisher), an `isOpaque` flag
/// and, for animations, per-frame durations and a loop count. Copies share their pixel memory.
/// Build one from encoded bytes with ``init(data:options:)``, from pixels with ``init(frame:scale:)``
/// or ``init(frames:loopCount:scale:)``.
public struct KFCrossPlatformImage: Sendable {
    /// The frames; a still image has exactly one. Never empty.
    public let frames: [ImageFrame]
    /// Pixels per point: a 2x image of 200×200 pixels has a `size` of 100×100.
    public let scale: CGFloat
    /// How many times an animation plays; 0 means forever. 0 for a still image.
    public var loopCount: Int { lazyLoopCount ?? storedLoopCount }
    private let storedLoopCount: Int
    /// The loop count of a lazily decoded animation, whose one decoded frame is a still.
    var lazyLoopCount: Int?
    /// True when every pixel of every frame has alpha 255.
    public let isOpaque: Bool
    /// The decoding choices of the request that put this image in a memory cache; `nil` for an
    /// image no cache has stored. Not part of the image's value: equality ignores it.
    var creatingTag: ImageCreatingTag?
    /// The GIF, WebP, APNG, AVIF or JPEG XL bytes an animated image was decoded from (also when only its first frame
    /// was decoded): encoding the image in that format gives them back, so no frame is lost. Images
    /// made by processors have none.
    var animatedImageData: Data?
    /// For an animation decoded lazily (`ImageCreatingOptions.preloadAllFrames` off): its frames on
    /// demand. ``frames`` then holds only the first frame; an ``Animator`` plays the rest.
    public internal(set) var frameSource: (any ImageFrameSource)?

    /// An image of one frame; `isOpaque` is worked out from the pixels.
    public init(frame: ImageFrame, scale: CGFloat = 1) {
        self.init(validated: [frame.withDuration(0)], loopCount: 0, scale: scale, isOpaque: frame.allOpaque)
    }

    /// An animated image; `nil` when `frames` is empty or the frames differ in pixel size.
    public init?(frames: [ImageFrame], loopCount: Int = 0, scale: CGFloat = 1) {
        guard let first = frames.first,
              frames.allSatisfy({ $0.width == first.width && $0.height == first.height })
        else { return nil }
        let opaque = frames.allSatisfy(\.allOpaque)
        self.init(validated: frames, loopCount: max(0, loopCount), scale: scale, isOpaque: opaque)
    }

    /// For codecs and processors that have checked that the frames agree and know the opacity.
    init(validated frames: [ImageFrame], loopCount: Int, scale: CGFloat, isOpaque: Bool) {
        assert(!frames.isEmpty)
        self.frames = frames
        self.storedLoopCount = frames.count > 1 ? loopCount : 0
        self.scale = scale.isFinite && scale > 0 ? scale : 1
        self.isOpaque = isOpaque
    }

    /// The first frame: what a still image is, and what an animation shows before it starts.
    public var firstFrame: ImageFrame {
        // `frames` is never empty: every initialiser checks it.
        frames[0]
    }

    /// Width in pixels.
    public var pixelWidth: Int { firstFrame.width }
    /// Height in pixels.
    public var pixelHeight: Int { firstFrame.height }
    /// Size in points: the pixel size divided by `scale`.
    public var size: CGSize {
        CGSize(width: CGFloat(pixelWidth) / scale, height: CGFloat(pixelHeight) / scale)
    }

    /// True when the image has more than one decoded frame (a lazily decoded animation has one;
    /// see ``frameCount``).
    public var isAnimated: Bool { frames.count > 1 }

    /// The frames of the animation, decoded or not: the frame source's count for a lazily decoded
    /// animation, else the decoded frames'.
    public var frameCount: Int { frameSource?.frameCount ?? frames.count }

    /// One full pass of the animation in seconds; 0 for a still image.
    public var duration: TimeInterval {
        isAnimated ? frames.reduce(0) { $0 + $1.duration } : 0
    }

    /// The frames as still images, as `UIImage.images` gives them; `nil` for a still image.
    public var images: [KFCrossPlatformImage]? {
        guard isAnimated else { return nil }
        return frames.map { KFCrossPlatformImage(frame: $0, scale: scale) }
    }

    /// Bytes of decoded pixel memory held, summed over the frames.
    public var cost: Int {
        frames.reduce(0) { $0 + $1.pixels.count }
    }

    /// The same pixels at another scale.
    public func withScale(_ scale: CGFloat) -> KFCrossPlatformImage {
        var image = KFCrossPlatformImage(validated: frames, loopCount: loopCount, scale: scale, isOpaque: isOpaque)
        image.animatedImageData = animatedImageData
        image.frameSource = frameSource
        image.lazyLoopCount = lazyLoopCount
        return image
    }

    /// Only the first frame, as a still image.
    public func firstFrameOnly() -> KFCrossPlatformImage {
        guard isAnimated else { return self }
        return KFCrossPlatformImage(validated: [firstFrame.withDuration(0)], loopCount: 0, scale: scale, isOpaque: firstFrame.allOpaque)
    }
}

extension KFCrossPlatformImage: Hashable {
    /// Images are equal when their pixels, frame timing, scale and loop count are.
    public static func == (lhs: KFCrossPlatformImage, rhs: KFCrossPlatformImage) -> Bool {
        lhs.frames == rhs.frames && lhs.scale == rhs.scale && lhs.loopCount == rhs.loopCount && lhs.isOpaque == rhs.isOpaque
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(frames)
        hasher.combine(scale)
        hasher.combine(loopCount)
        hasher.combine(isOpaque)
    }
}
