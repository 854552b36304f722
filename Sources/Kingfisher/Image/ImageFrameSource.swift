import Foundation
import KingfisherSynchronization

/// The frames of an animation, decoded one at a time when asked: what a lazily decoded animated
/// image carries instead of every frame's pixels (Kingfisher's name).
///
/// An ``Animator`` plays from one, holding only a small window of decoded frames, so a long
/// animation costs a few frames of memory instead of all of them.
public protocol ImageFrameSource: Sendable {
    /// The encoded bytes the frames come from.
    var data: Data { get }
    /// How many frames the animation has.
    var frameCount: Int { get }
    /// How long frame `index` shows, in seconds (Kingfisher's rule for short delays applied).
    func duration(at index: Int) -> TimeInterval
    /// Frame `index`, composited on the full canvas; no larger than `maxSize` (in pixels, aspect
    /// kept) when one is given. Throws a ``KingfisherError`` when the frame cannot be decoded.
    func frame(at index: Int, maxSize: CGSize?) throws -> ImageFrame
    /// A source of the same frames that decodes on its own, so that two players of one animation
    /// do not take turns on one decoder's place. The default returns `self`.
    func copy() -> Self
}

extension ImageFrameSource {
    /// `self`: a source without decoding state of its own can be shared.
    public func copy() -> Self {
        self
    }

    /// Frame `index` at full size, or `nil` when it cannot be decoded (``frame(at:maxSize:)``
    /// says why).
    public func frame(at index: Int) -> ImageFrame? {
        try? frame(at: index, maxSize: nil)
    }

    /// One pass of the animation, in seconds.
    public var totalDuration: TimeInterval {
        (0..<frameCount).reduce(0) { $0 + duration(at: $1) }
    }
}

/// Frames of a GIF, an animated WebP or an APNG, decoded on demand from the original bytes.
///
/// Playing forward costs one frame's decode per frame: the source keeps where the last decode
/// stopped (for GIF the composited canvas and the offset of the next record; for WebP the
/// decoder's place; for APNG the chunk structure and the canvas) and goes on from there; going
/// back starts again from the first frame, the one other key frame kept. Safe to use from several
/// threads (decodes take turns).
final class CodecFrameSource: ImageFrameSource {
    let data: Data
    let frameCount: Int
    private let durations: [TimeInterval]
    private let options: ImageCreatingOptions
    private let format: ImageFormat
    private let gifResume = Mutex<GIFDecoder.ResumePoint?>(nil)
    private let apngResume = Mutex<APNGCodec.ResumePoint?>(nil)
    private let webp: WebPAnimationCursor?
    /// What the source was made from, for ``copy()``.
    private let header: ImageHeader
    private let creatingOptions: ImageCreatingOptions

    /// A source for `data`, whose header said `header`; `nil` for a format that cannot animate.
    init?(data: Data, header: ImageHeader, options: ImageCreatingOptions) {
        guard header.frameCount > 1, header.frameDurations.count == header.frameCount else { return nil }
        self.header = header
        self.creatingOptions = options
        self.data = data
        self.frameCount = header.frameCount
        self.durations = header.frameDurations
        self.format = header.format
        var frameOptions = options
        frameOptions.onlyFirstFrame = false
        frameOptions.minimumPixelSize = nil
        self.options = frameOptions
        switch header.format {
        case .GIF, .PNG: webp = nil
        case .WebP: webp = WebPAnimationCursor(data: data, limits: options.limits, keepsSourceColors: options.keepsSourceColors)
        default: return nil
        }
    }

    func duration(at index: Int) -> TimeInterval {
        durations.indices.contains(index) ? durations[index] : 0
    }

    /// A new source of the same bytes, starting from the first frame with no shared state.
    func copy() -> CodecFrameSource {
        CodecFrameSource(data: data, header: header, options: creatingOptions) ?? self
    }

    func frame(at index: Int, maxSize: CGSize?) throws -> ImageFrame {
        guard (0..<frameCount).contains(index) else {
            throw KingfisherError.processorError(reason: .decodingFailed(
                format: format, description: "frame \(index + 1) was asked for; the animation has \(frameCount)"))
        }
        let frame: ImageFrame
        if let webp {
            frame = try webp.frame(at: index).withDuration(duration(at: index))
        } else if format == .PNG {
            frame = try apngResume.withLock { resume in
                let (frame, next) = try APNGCodec.frame(at: index, of: data, from: resume, options: options)
                resume = next
                return frame
            }
        } else {
            frame = try gifResume.withLock { resume in
                let (frame, next) = try GIFDecoder.frame(at: index, of: data, from: resume, options: options)
                resume = next
                return frame
            }
        }
        return frame.fitted(within: maxSize)
    }
}

extension ImageFrame {
    /// The frame scaled down, aspect kept, to fit `maxSize` (pixels), as a frame source hands out
    /// frames; the frame itself when `maxSize` is `nil`, not positive, or already large enough.
    func fitted(within maxSize: CGSize?) -> ImageFrame {
        guard let maxSize, maxSize.width > 0, maxSize.height > 0,
              CGFloat(width) > maxSize.width || CGFloat(height) > maxSize.height else { return self }
        let ratio = min(maxSize.width / CGFloat(width), maxSize.height / CGFloat(height))
        let fittedWidth = max(1, Int((CGFloat(width) * ratio).rounded()))
        let fittedHeight = max(1, Int((CGFloat(height) * ratio).rounded()))
        let still = KFCrossPlatformImage(frame: self)
        return still.kf.resize(to: CGSize(width: fittedWidth, height: fittedHeight)).firstFrame.withDuration(duration)
    }
}
