import Foundation

extension KFCrossPlatformImage {
    /// The animation with `total` seconds spread evenly over its frames, as UIKit's
    /// `animatedImage(with:duration:)` does; the encoded bytes are dropped, since they hold the
    /// old timing.
    func spreading(_ total: TimeInterval) -> KFCrossPlatformImage {
        guard isAnimated, total.isFinite, total > 0 else { return self }
        let each = total / Double(frames.count)
        var image = KFCrossPlatformImage(
            validated: frames.map { $0.withDuration(each) }, loopCount: loopCount, scale: scale, isOpaque: isOpaque)
        image.creatingTag = creatingTag
        return image
    }
}

extension KingfisherWrapper where Base == KFCrossPlatformImage {
    /// How many frames the animation the image came from has (decoded or not); `nil` for an image
    /// that did not come from an animated file or frame source.
    public var imageFrameCount: Int? {
        guard base.isAnimated || base.frameSource != nil || base.animatedImageData != nil else { return nil }
        return base.frameCount
    }

    /// The frames still to decode of a lazily decoded animation, which an ``Animator`` plays;
    /// `nil` otherwise.
    public var frameSource: (any ImageFrameSource)? {
        base.frameSource
    }

    /// Gives `target` what this image carries besides its pixels: the encoded bytes of its
    /// animation, its frame source and the loop count of a lazy animation.
    ///
    /// `target` is `inout` because images are values here; in Kingfisher it is an object.
    public func copyKingfisherState(to target: inout KFCrossPlatformImage) {
        target.animatedImageData = base.animatedImageData
        target.frameSource = base.frameSource
        target.lazyLoopCount = base.lazyLoopCount
    }

    /// The image in `data`, decoded with `options`; an animation is decoded lazily (its first frame
    /// now, the rest through a frame source) unless `options.preloadAll` or `onlyFirstFrame`.
    /// `nil` when the data does not decode; ``KFCrossPlatformImage/init(data:options:)`` says why.
    public static func animatedImage(data: Data, options: ImageCreatingOptions) -> KFCrossPlatformImage? {
        try? KFCrossPlatformImage(data: data, options: options)
    }

    /// An image of the frames of `source`.
    ///
    /// With `options.preloadAll` every frame is decoded now: each shows for its own duration, or
    /// for `options.duration / frameCount` when `options.duration` is over 0. With
    /// `options.onlyFirstFrame` the result is the first frame, still. Otherwise the result is
    /// `baseImage` (or the first frame, when `nil`) carrying `source`, from which an ``Animator``
    /// decodes the rest as it plays. `nil` when a frame needed now does not decode.
    public static func animatedImage(
        source: any ImageFrameSource, options: ImageCreatingOptions, baseImage: KFCrossPlatformImage? = nil
    ) -> KFCrossPlatformImage? {
        guard source.frameCount > 0 else { return nil }
        if options.onlyFirstFrame {
            guard let first = source.frame(at: 0) else { return nil }
            var image = KFCrossPlatformImage(frame: first, scale: options.scale)
            image.animatedImageData = source.data
            return image
        }
        if options.preloadAll {
            var frames: [ImageFrame] = []
            frames.reserveCapacity(source.frameCount)
            for index in 0..<source.frameCount {
                guard let frame = source.frame(at: index) else { return nil }
                frames.append(frame.withDuration(source.duration(at: index)))
            }
            guard var image = KFCrossPlatformImage(frames: frames, loopCount: baseImage?.loopCount ?? 0, scale: options.scale)
            else { return nil }
            image.animatedImageData = source.data
            return image.spreading(options.duration)
        }
        var image: KFCrossPlatformImage
        if let baseImage {
            image = baseImage
        } else {
            guard let first = source.frame(at: 0) else { return nil }
            image = KFCrossPlatformImage(frame: first, scale: options.scale)
        }
        image.frameSource = source
        image.animatedImageData = source.data
        if image.lazyLoopCount == nil { image.lazyLoopCount = baseImage?.loopCount ?? 0 }
        return image
    }
}
