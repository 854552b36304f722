import Foundation

/// How encoded data becomes a ``KFCrossPlatformImage``.
///
/// The name and the first three fields follow Kingfisher's; `limits` and `minimumPixelSize` are ours.
public struct ImageCreatingOptions: Sendable, Hashable {
    /// The scale of the image made; its `size` is the pixel size divided by this.
    public var scale: CGFloat
    /// Decode only the first frame of an animation.
    public var onlyFirstFrame: Bool
    /// The limits checked before any pixel memory is taken.
    public var limits: ImageDecodingLimits
    /// Lets a decoder that can scale while it decodes (JPEG by 1/2, 1/4 or 1/8, WebP to any size)
    /// return a smaller image whose pixel size, upright, is still at least this in both directions.
    ///
    /// A zero or negative dimension sets no bound in that direction. Other formats, and images already
    /// smaller, decode at full size. Callers finish with a resample to the exact size they want.
    public var minimumPixelSize: CGSize?
    /// Decode every frame of an animation now (the default). When false, a GIF or animated WebP
    /// decodes only its first frame and carries a ``KFCrossPlatformImage/frameSource`` for the rest,
    /// as an animated image view asks (Kingfisher's `preloadAllAnimationData` off).
    public var preloadAllFrames: Bool
    /// Keep the pixel values as the file stores them instead of converting an image with an embedded
    /// colour profile (ICC, or AVIF/HEIC colour code points) to sRGB, which is the default.
    ///
    /// The frames of an ``ImageFrame`` are taken to be sRGB everywhere else, so an image decoded with
    /// this on shows its colours wrong unless the caller manages them itself.
    public var keepsSourceColors: Bool
    /// The length of one pass of an animation decoded whole, in seconds, spread evenly over its
    /// frames (each shows `duration / frameCount`); 0 or less keeps the file's own frame
    /// durations. An animation decoded lazily keeps the file's durations, as in Kingfisher.
    public var duration: TimeInterval = 0

    /// Kingfisher's name for ``preloadAllFrames``.
    public var preloadAll: Bool {
        get { preloadAllFrames }
        set { preloadAllFrames = newValue }
    }

    /// Makes options; the defaults decode everything at full size under the default limits, in sRGB.
    public init(scale: CGFloat = 1, onlyFirstFrame: Bool = false, limits: ImageDecodingLimits = .default,
                minimumPixelSize: CGSize? = nil, preloadAllFrames: Bool = true, keepsSourceColors: Bool = false) {
        self.scale = scale
        self.onlyFirstFrame = onlyFirstFrame
        self.limits = limits
        self.minimumPixelSize = minimumPixelSize
        self.preloadAllFrames = preloadAllFrames
        self.keepsSourceColors = keepsSourceColors
    }

    /// Makes options with Kingfisher's arguments and defaults: an animation is decoded lazily unless
    /// `preloadAll`, and `duration` (when over 0) replaces its frame timing.
    ///
    /// A call that both initialisers accept, such as `ImageCreatingOptions(scale: 2)`, picks the
    /// one above, which preloads every frame.
    @_disfavoredOverload
    public init(scale: CGFloat = 1, duration: TimeInterval = 0, preloadAll: Bool = false, onlyFirstFrame: Bool = false) {
        self.init(scale: scale, onlyFirstFrame: onlyFirstFrame, preloadAllFrames: preloadAll)
        self.duration = duration
    }
}

/// The decoding choices that make one image of the same bytes differ from another: a memory-cache
/// hit made with other choices is not the image the request asked for.
struct ImageCreatingTag: Sendable, Hashable {
    /// The scale the image was made at.
    var scale: CGFloat
    /// Whether only the first frame was decoded.
    var onlyFirstFrame: Bool
    /// Whether an animation's frames were decoded now rather than on demand.
    var preloadAllFrames: Bool
    /// Whether the source's colours were kept rather than converted to sRGB.
    var keepsSourceColors: Bool = false

    /// The choices that make a memory hit be made again: all but the scale, which a hit keeps.
    var ignoringScale: ImageCreatingTag {
        var tag = self
        tag.scale = 1
        return tag
    }
}

extension KingfisherParsedOptionsInfo {
    /// The decoding choices of these options that a memory-cache hit must share.
    var imageCreatingTag: ImageCreatingTag {
        ImageCreatingTag(scale: scaleFactor, onlyFirstFrame: onlyLoadFirstFrame,
                         preloadAllFrames: imageCreatingOptions.preloadAllFrames,
                         keepsSourceColors: imageCreatingOptions.keepsSourceColors)
    }
}

/// How an image is encoded.
public struct ImageEncodingOptions: Sendable, Hashable {
    /// JPEG, lossy WebP, AVIF and lossy JPEG XL quality, 0 (smallest) to 1 (best).
    public var compressionQuality: CGFloat
    /// Write WebP and JPEG XL losslessly instead of lossy.
    public var lossless: Bool
    /// Write JPEG as a progressive file (libjpeg's default scan script), which a viewer can show
    /// coarse first and sharpen as it arrives.
    public var progressive: Bool
    /// AVIF encoder speed, 0 (slowest, smallest files) to 10 (fastest), as `avifenc --speed` counts it.
    ///
    /// The default, 6, is libavif's; `kf serve` uses its own (see its `--help`).
    public var avifSpeed: Int
    /// JPEG XL encoder effort, 1 (fastest) to 9 (slowest, smallest files), as `cjxl --effort` counts it;
    /// the default, 7, is cjxl's.
    public var jxlEffort: Int

    /// Makes options; the default quality is 0.9, WebP and JPEG XL are lossy and JPEG baseline.
    public init(compressionQuality: CGFloat = 0.9, lossless: Bool = false, progressive: Bool = false,
                avifSpeed: Int = 6, jxlEffort: Int = 7) {
        self.compressionQuality = compressionQuality
        self.lossless = lossless
        self.progressive = progressive
        self.avifSpeed = avifSpeed
        self.jxlEffort = jxlEffort
    }

    /// The quality as libjpeg and libwebp count it, 1...100.
    var qualityPercent: Int {
        guard compressionQuality.isFinite else { return 90 }
        return Int((min(max(compressionQuality, 0), 1) * 100).rounded()).clamped(to: 1...100)
    }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self {
        min(max(self, range.lowerBound), range.upperBound)
    }
}
