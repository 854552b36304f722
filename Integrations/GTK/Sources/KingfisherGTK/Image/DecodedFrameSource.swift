import Foundation
import Kingfisher

/// The frames of an animation decoded up front, as an `ImageFrameSource`, so that
/// ``AnimatedImageView`` plays every animated image through an `Animator`. Frames are returned
/// as decoded; `maxSize` is not applied (they already take their memory).
struct DecodedFrameSource: ImageFrameSource {
    let frames: [ImageFrame]

    var data: Data { Data() }
    var frameCount: Int { frames.count }

    func duration(at index: Int) -> TimeInterval {
        guard frames.indices.contains(index) else { return 0.1 }
        let duration = frames[index].duration
        return duration > 0 ? duration : 0.1
    }

    func frame(at index: Int, maxSize: CGSize?) throws -> ImageFrame {
        guard frames.indices.contains(index) else {
            throw KingfisherError.processorError(
                reason: .decodingFailed(format: .unknown, description: "the animation has no frame \(index)"))
        }
        return frames[index]
    }
}
