import Foundation
import KingfisherSynchronization

// AVIF image sequences (`avis`): every frame at once, or the first now and the rest on demand.
extension AVIFCodec {
    /// Decodes the sequence `session` has parsed: every frame when `options.preloadAllFrames` is
    /// on, else the first frame with an ``AVIFFrameSource`` for the rest.
    ///
    /// The animation limits are checked on the frame count and the transformed frame size before
    /// any frame is decoded. Each AV1 frame is a full picture, so there is no compositing. libavif
    /// 0.11 does not expose an edit-list repetition count, so the loop count is 0 (forever).
    static func decodeSequence(_ session: sending AVIFDecodingSession, data: Data,
                               options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        let size = session.outputSize
        let frameCount = session.frameCount
        try options.limits.checkAnimation(frameCount: frameCount, width: size.width, height: size.height, format: format)
        let durations = (0..<frameCount).map { session.duration(at: $0) }

        if !options.preloadAllFrames {
            let (first, opaque) = try session.frame(at: 0)
            var image = KFCrossPlatformImage(validated: [first.withDuration(0)], loopCount: 0, scale: options.scale,
                                             isOpaque: opaque)
            image.frameSource = AVIFFrameSource(data: data, durations: durations, session: session)
            image.lazyLoopCount = 0
            image.animatedImageData = data
            return image
        }

        var frames: [ImageFrame] = []
        frames.reserveCapacity(frameCount)
        var opaque = true
        for index in 0..<frameCount {
            let (frame, frameOpaque) = try session.frame(at: index)
            opaque = opaque && frameOpaque
            frames.append(frame.withDuration(durations[index]))
        }
        var image = KFCrossPlatformImage(validated: frames, loopCount: 0, scale: options.scale, isOpaque: opaque)
        image.animatedImageData = data
        return image
    }
}

/// The frames of an AVIF sequence, decoded on demand by one open libavif decoder.
///
/// Playing forward costs one frame's decode per frame; going back starts again from the first
/// frame. Decodes take turns under a lock, so any thread may ask.
final class AVIFFrameSource: ImageFrameSource {
    let data: Data
    let frameCount: Int
    private let durations: [TimeInterval]
    private let session: Mutex<AVIFDecodingSession>

    /// A source over `session`, which parsed `data` and whose frames show for `durations`.
    init(data: Data, durations: [TimeInterval], session: sending AVIFDecodingSession) {
        self.data = data
        self.frameCount = durations.count
        self.durations = durations
        self.session = Mutex(session)
    }

    func duration(at index: Int) -> TimeInterval {
        durations.indices.contains(index) ? durations[index] : 0
    }

    func frame(at index: Int, maxSize: CGSize?) throws -> ImageFrame {
        let frame = try session.withLock { session in
            try session.frame(at: index).frame.withDuration(duration(at: index))
        }
        return frame.fitted(within: maxSize)
    }
}
