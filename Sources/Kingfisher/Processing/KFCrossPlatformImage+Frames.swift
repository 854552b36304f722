import Foundation

extension KFCrossPlatformImage {
    /// The image with `transform` applied to every frame, as processors work on animations: frame
    /// durations, the loop count and the scale are kept; opacity is worked out again.
    ///
    /// `nil` when `transform` returns `nil` for any frame or the frames come back in differing sizes.
    func mapFrames(_ transform: (ImageFrame) -> ImageFrame?) -> KFCrossPlatformImage? {
        var result: [ImageFrame] = []
        result.reserveCapacity(frames.count)
        for frame in frames {
            guard let mapped = transform(frame) else { return nil }
            result.append(mapped.withDuration(frame.duration))
        }
        guard let first = result.first,
              result.allSatisfy({ $0.width == first.width && $0.height == first.height })
        else { return nil }
        return KFCrossPlatformImage(validated: result, loopCount: loopCount, scale: scale,
                                    isOpaque: result.allSatisfy(\.allOpaque))
    }
}
