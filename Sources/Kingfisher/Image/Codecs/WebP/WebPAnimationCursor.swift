import CLibWebP
import Foundation
import KingfisherSynchronization

/// A `WebPAnimDecoder` kept open over its own copy of an animation's bytes, so frames can be
/// decoded one at a time, going forward from where the last decode stopped (libwebp composites
/// each frame on the previous canvas; going back resets to the first frame).
///
/// `@unchecked Sendable`: the decoder and the bytes it reads are touched only inside `state`'s
/// lock, and freed in `deinit`, when no other reference exists.
final class WebPAnimationCursor: @unchecked Sendable {
    private struct State {
        var decoder: OpaquePointer?
        /// The index of the frame the next `WebPAnimDecoderGetNext` returns.
        var next = 0
    }

    private let bytes: UnsafeMutableRawBufferPointer
    private let width: Int
    private let height: Int
    /// The EXIF orientation, applied to every frame handed out.
    private let orientation: ImageOrientation
    /// The ICC profile to convert every frame from, when it needs converting (frames then decode straight).
    private let profile: EmbeddedColorProfile?
    private let state: Mutex<State>

    /// A cursor over `data`; `nil` when libwebp cannot open it or its canvas breaks `limits`. Frames
    /// come in sRGB unless `keepsSourceColors` (see ``ImageCreatingOptions/keepsSourceColors``).
    init?(data: Data, limits: ImageDecodingLimits, keepsSourceColors: Bool = false) {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 8)
        data.withUnsafeBytes { source in
            if let base = source.baseAddress { bytes.baseAddress?.copyMemory(from: base, byteCount: source.count) }
        }
        var options = WebPAnimDecoderOptions()
        var webpData = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: data.count)
        var info = WebPAnimInfo()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            bytes.deallocate()
            return nil
        }
        let embedded = data.withUnsafeBytes { WebPICC.profile($0) }
        let converts = ColorManagement.needsConversion(embedded, options: ImageCreatingOptions(keepsSourceColors: keepsSourceColors))
        options.color_mode = converts ? MODE_RGBA : MODE_rgbA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&webpData, &options), WebPAnimDecoderGetInfo(decoder, &info) != 0,
              (try? limits.checkFrame(width: Int(info.canvas_width), height: Int(info.canvas_height), format: .WebP)) != nil
        else {
            bytes.deallocate()
            return nil
        }
        self.bytes = bytes
        orientation = WebPEXIF.orientation(UnsafeRawBufferPointer(bytes))
        profile = converts ? embedded : nil
        width = Int(info.canvas_width)
        height = Int(info.canvas_height)
        state = Mutex(State(decoder: decoder))
    }

    deinit {
        state.withLock { state in
            if let decoder = state.decoder { WebPAnimDecoderDelete(decoder) }
        }
        bytes.deallocate()
    }

    /// Frame `index`, composited; throws when libwebp cannot decode it or a frame before it.
    func frame(at index: Int) throws -> ImageFrame {
        try state.withLock { state in
            guard let decoder = state.decoder else {
                throw WebPCodec.decodingError("the animation decoder is not open")
            }
            if index < state.next {
                WebPAnimDecoderReset(decoder)
                state.next = 0
            }
            while true {
                var canvas: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                    WebPAnimDecoderReset(decoder)
                    let failed = state.next + 1
                    state.next = 0
                    throw WebPCodec.decodingError("frame \(failed) could not be decoded")
                }
                state.next += 1
                if state.next - 1 == index {
                    var pixels = [UInt8](UnsafeBufferPointer(start: canvas, count: width * height * 4))
                    if profile != nil {
                        try WebPICC.convertStraight(&pixels, width: width, height: height, profile: profile,
                                                    options: ImageCreatingOptions())
                    }
                    return orientation.apply(to: ImageFrame(unchecked: width, height: height, pixels: pixels))
                }
            }
        }
    }
}
