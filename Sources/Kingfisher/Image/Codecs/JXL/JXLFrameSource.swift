import Foundation
import KingfisherSynchronization

/// The frames of a JPEG XL animation, decoded on demand by one libjxl decoder kept open over a
/// private copy of the file.
///
/// Playing forward costs one frame's decode per frame: the decoder stays where the last frame
/// ended, and a jump ahead skips the frames between (libjxl still reads what later frames are
/// composited from). Going back rewinds the decoder, which keeps what it learnt of the frames'
/// layout, and skips to the frame asked for. The decoder runs on the calling thread (no thread
/// pool is kept per animation). Safe to use from several threads: decodes take turns.
final class JXLFrameSource: ImageFrameSource {
    let data: Data
    let frameCount: Int
    private let durations: [TimeInterval]
    private let cursor: Mutex<JXLFrameCursor>

    /// A source for the animation in `data`, whose frame headers libjxl reads first (without
    /// decoding any frame) for the count and the durations; `nil` when it has only one frame.
    ///
    /// Throws when the frame headers cannot all be read (a truncated or corrupt animation) or the
    /// frames are more than `options.limits.maxFrameCount`.
    init?(data: Data, options: ImageCreatingOptions) throws {
        let timing = try JXLCodec.frameTiming(data)
        guard timing.durations.count > 1 else { return nil }
        if timing.durations.count > options.limits.maxFrameCount {
            throw KingfisherError.processorError(reason: .imageLimitExceeded(
                format: .JXL, violation: .frameCount(count: timing.durations.count, limit: options.limits.maxFrameCount)))
        }
        let cursor = try JXLFrameCursor(data: data, options: options)
        self.data = data
        frameCount = timing.durations.count
        durations = timing.durations
        self.cursor = Mutex(cursor)
    }

    func duration(at index: Int) -> TimeInterval {
        durations.indices.contains(index) ? durations[index] : 0
    }

    func frame(at index: Int, maxSize: CGSize?) throws -> ImageFrame {
        guard (0..<frameCount).contains(index) else {
            throw JXLCodec.decodingError("frame \(index + 1) was asked for; the animation has \(frameCount)")
        }
        let frame = try cursor.withLock { try $0.frame(at: index) }.withDuration(duration(at: index))
        return frame.fitted(within: maxSize)
    }
}

/// A ``JXLDecodeSession`` that owns the bytes it reads and walks to any frame.
///
/// Lives only inside ``JXLFrameSource``'s mutex.
final class JXLFrameCursor {
    private let bytes: UnsafeMutableRawBufferPointer
    private let session: JXLDecodeSession
    private let info: JXLDecodeSession.Info

    /// A cursor over a copy of `data`, its header read.
    init(data: Data, options: ImageCreatingOptions) throws {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        bytes.copyBytes(from: data)
        var frameOptions = options
        frameOptions.onlyFirstFrame = false
        frameOptions.minimumPixelSize = nil
        do {
            session = try JXLDecodeSession(input: UnsafeRawBufferPointer(rebasing: bytes[0..<data.count]),
                                           options: frameOptions, decodesPixels: true, threaded: false)
            info = try session.readHeader()
        } catch {
            bytes.deallocate()
            throw error
        }
    }

    deinit {
        bytes.deallocate()
    }

    /// Frame `index`, composited and upright; throws when it or a frame it depends on cannot be decoded.
    func frame(at index: Int) throws -> ImageFrame {
        do {
            if index < session.nextIndex { try session.rewind() }
            session.skip(index - session.nextIndex)
            guard let frame = try session.nextFrame(), let pixels = frame.pixels else {
                throw JXLCodec.decodingError("the animation ended before frame \(index + 1)")
            }
            return ImageFrame(unchecked: info.width, height: info.height, pixels: pixels)
        } catch {
            // Whatever state libjxl was left in, the next call starts from the first frame.
            try? session.rewind()
            throw error
        }
    }
}
