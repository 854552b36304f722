import CLibAVIF
import Foundation

/// One `avifDecoder`, parsed over its own copy of a file's bytes, that hands out upright,
/// premultiplied sRGB frames one at a time.
///
/// Creating one parses the container and checks `options.limits` against the coded size (and sets
/// libavif's own pixel limit to match, so the AV1 decoder refuses a bitstream that claims more);
/// no pixel memory is taken until ``frame(at:)``. A frame goes: AV1 decode (libavif, one thread, as
/// `avifdec` by default), YUV of any depth to 8-bit straight RGBA (libavif, through libyuv where
/// libyuv has a path for the depth and chroma layout, else libavif's own arithmetic),
/// `clap` crop, conversion to sRGB from the image's ICC profile or CICP code points,
/// premultiplication, then `irot` and `imir`. PQ and HLG frames are converted to 16-bit RGBA
/// instead and tone mapped to 8-bit sRGB by ``HDRToneMapping``, as JPEG XL's are.
///
/// Not thread-safe: one caller at a time (``AVIFFrameSource`` holds it under a lock).
final class AVIFDecodingSession {
    /// The frame size as coded, before any transform.
    let codedWidth: Int
    /// The frame height as coded, before any transform.
    let codedHeight: Int
    /// Frames in the file: 1 for a still image, the sample count of a sequence.
    let frameCount: Int
    /// Whether libavif found an alpha plane.
    let hasAlpha: Bool
    /// The colour space the pixels are in, `nil` when the file leaves it unspecified.
    let profile: EmbeddedColorProfile?
    /// The `clap`, `irot` and `imir` applied to every frame.
    let transform: AVIFTransform
    /// For PQ and HLG code points (unless the source's colours are kept): how frames reach SDR sRGB.
    let toneMapping: HDRToneMapping?

    private let handle: AVIFDecoderHandle
    private let options: ImageCreatingOptions
    /// The index of the frame `avifDecoderNextImage` decodes next.
    private var next = 0

    /// Parses `data`; throws a ``KingfisherError`` when libavif cannot, when the image is over
    /// `options.limits` or when its transforms are invalid.
    init(data: Data, options: ImageCreatingOptions) throws {
        let handle = try AVIFDecoderHandle(data: data, library: AVIFCodec.library())
        let decoder = handle.decoder
        decoder.pointee.maxThreads = 1
        // libavif's default is 16384 × 16384; ours is usually lower, and dav1d enforces it too.
        decoder.pointee.imageSizeLimit = UInt32(clamping: min(options.limits.maxPixelsPerFrame, 16384 * 16384))
        decoder.pointee.ignoreXMP = 1
        decoder.pointee.ignoreExif = 1
        // Browsers decode files that lack a `pixi` box or carry an odd `clap` (older encoders wrote
        // them); libavif's strict mode refuses them. The clean aperture is checked here instead.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        try handle.check(handle.library.decoderSetIOMemory(decoder, handle.start, data.count),
                         "the data could not be handed to libavif")
        let parsed = handle.library.decoderParse(decoder)
        if parsed != AVIF_RESULT_OK {
            // A size over our limit fails libavif's own check; say so as a limit, as other codecs do.
            if let size = Self.unlimitedSize(of: data, library: handle.library) {
                try options.limits.checkFrame(width: size.width, height: size.height, format: .AVIF)
            }
            try handle.check(parsed, "the file could not be parsed")
        }
        guard let image = decoder.pointee.image else {
            throw AVIFCodec.decodingError("libavif parsed the file but gave no image")
        }
        codedWidth = Int(image.pointee.width)
        codedHeight = Int(image.pointee.height)
        frameCount = Int(decoder.pointee.imageCount)
        guard frameCount > 0 else { throw AVIFCodec.decodingError("the file has no image") }
        try options.limits.checkFrame(width: codedWidth, height: codedHeight, format: .AVIF)
        hasAlpha = decoder.pointee.alphaPresent != 0
        profile = Self.profile(of: image.pointee)
        if case .cicp(let primaries, let transfer) = profile, !options.keepsSourceColors {
            toneMapping = HDRToneMapping(primaries: primaries, transfer: transfer)
        } else {
            toneMapping = nil
        }
        do {
            transform = try AVIFTransform(image: image.pointee)
        } catch {
            throw AVIFCodec.decodingError(error.description)
        }
        self.handle = handle
        self.options = options
    }

    /// The size every frame has once transformed.
    var outputSize: (width: Int, height: Int) { transform.outputSize(width: codedWidth, height: codedHeight) }

    /// How long frame `index` shows, in seconds, from the sequence's timing (Kingfisher's rule for
    /// short delays applied: 11 ms or less shows for 100 ms).
    func duration(at index: Int) -> TimeInterval {
        var timing = avifImageTiming()
        guard index >= 0, index < frameCount,
              handle.library.decoderNthImageTiming(handle.decoder, UInt32(index), &timing) == AVIF_RESULT_OK,
              timing.duration.isFinite
        else { return 0.1 }
        return timing.duration <= 0.011 ? 0.1 : timing.duration
    }

    /// Frame `index`, upright and premultiplied, and whether every pixel of it is opaque.
    ///
    /// Going forward decodes from where the last call stopped; going back starts over from the
    /// first frame (libavif decodes from the nearest key frame only when asked for an exact index,
    /// which costs the same here).
    func frame(at index: Int) throws -> (frame: ImageFrame, opaque: Bool) {
        guard index >= 0, index < frameCount else {
            throw AVIFCodec.decodingError("frame \(index + 1) was asked for; the file has \(frameCount)")
        }
        if index < next {
            try handle.check(handle.library.decoderReset(handle.decoder), "the decoder could not go back to the first frame")
            next = 0
        }
        while next <= index {
            let result = handle.library.decoderNextImage(handle.decoder)
            let decoded = next + 1
            next = decoded
            if result != AVIF_RESULT_OK {
                // The decoder's state after a failure is unknown; the next call starts over.
                next = frameCount
                try handle.check(result, "frame \(decoded) of \(frameCount) could not be decoded")
            }
        }
        return try convertCurrentImage()
    }

    /// Turns the image libavif just decoded into an upright, premultiplied frame.
    private func convertCurrentImage() throws -> (frame: ImageFrame, opaque: Bool) {
        let library = handle.library
        guard let image = handle.decoder.pointee.image else {
            throw AVIFCodec.decodingError("libavif decoded a frame but gave no image")
        }
        let width = Int(image.pointee.width)
        let height = Int(image.pointee.height)
        guard width == codedWidth, height == codedHeight else {
            throw AVIFCodec.decodingError("a frame is \(width)×\(height) pixels; the file declares \(codedWidth)×\(codedHeight)")
        }
        var rgb = avifRGBImage()
        library.rgbImageSetDefaults(&rgb, image)
        rgb.depth = 8
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.rowBytes = UInt32(width * 4)
        var status = AVIF_RESULT_OK
        let toneMapping = self.toneMapping
        let decoded = PixelMemory.bytes(count: width * height * 4) { buffer in
            guard let toneMapping else {
                rgb.pixels = buffer.baseAddress
                status = library.imageYUVToRGB(image, &rgb)
                if status != AVIF_RESULT_OK { buffer.initialize(repeating: 0) }
                return
            }
            // PQ and HLG: 16-bit samples, tone mapped to 8-bit sRGB.
            rgb.depth = 16
            rgb.rowBytes = UInt32(width * 8)
            var wide = [UInt16](repeating: 0, count: width * height * 4)
            wide.withUnsafeMutableBufferPointer { samples in
                rgb.pixels = UnsafeMutableRawPointer(samples.baseAddress)?.assumingMemoryBound(to: UInt8.self)
                status = library.imageYUVToRGB(image, &rgb)
            }
            rgb.pixels = nil
            guard status == AVIF_RESULT_OK else {
                buffer.initialize(repeating: 0)
                return
            }
            wide.withUnsafeBufferPointer { samples in
                toneMapping.convert(samples, into: UnsafeMutableRawBufferPointer(buffer), pixelCount: width * height)
            }
        }
        try handle.check(status, "the decoded frame could not be converted to RGBA")

        var (pixels, croppedWidth, croppedHeight) = transform.cropped(decoded, width: width, height: height)
        var opaque = true
        try pixels.withUnsafeMutableBytes { buffer in
            if toneMapping == nil {
                try ColorManagement.convertToSRGB(buffer, width: croppedWidth, height: croppedHeight, from: profile,
                                                  options: options)
            }
            opaque = PixelConversion.premultiply(buffer)
        }
        let frame = ImageFrame(unchecked: croppedWidth, height: croppedHeight, pixels: pixels)
        return (transform.orientation.apply(to: frame), opaque)
    }

    /// The coded size libavif parses from `data` under its default limits, or `nil` when it cannot;
    /// asked only after a parse under our limit failed, to tell "too large" from "damaged".
    private static func unlimitedSize(of data: Data, library: AVIFLibrary) -> (width: Int, height: Int)? {
        guard let handle = try? AVIFDecoderHandle(data: data, library: library),
              library.decoderSetIOMemory(handle.decoder, handle.start, data.count) == AVIF_RESULT_OK,
              library.decoderParse(handle.decoder) == AVIF_RESULT_OK,
              let image = handle.decoder.pointee.image
        else { return nil }
        return (Int(image.pointee.width), Int(image.pointee.height))
    }

    /// The image's ICC profile when it has one, else its CICP primaries and transfer, else `nil`
    /// when both are "unspecified" (2).
    private static func profile(of image: avifImage) -> EmbeddedColorProfile? {
        if image.icc.size > 0, let data = image.icc.data {
            return .icc(Data(bytes: data, count: image.icc.size))
        }
        let primaries = UInt16(image.colorPrimaries)
        let transfer = UInt16(image.transferCharacteristics)
        if primaries == 2, transfer == 2 { return nil }
        return .cicp(colorPrimaries: primaries, transferCharacteristics: transfer)
    }
}

/// An `avifDecoder` and the copy of the bytes it reads, freed together.
private final class AVIFDecoderHandle {
    let library: AVIFLibrary
    let decoder: AVIFLibrary.Decoder
    private let bytes: UnsafeMutableRawBufferPointer

    /// A fresh decoder and a copy of `data`; throws when libavif cannot make a decoder.
    init(data: Data, library: AVIFLibrary) throws {
        guard let decoder = library.decoderCreate() else {
            throw AVIFCodec.decodingError("libavif could not create a decoder (out of memory)")
        }
        self.library = library
        self.decoder = decoder
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.withUnsafeBytes { source in
            if let base = source.baseAddress { bytes.baseAddress?.copyMemory(from: base, byteCount: source.count) }
        }
    }

    deinit {
        library.decoderDestroy(decoder)
        bytes.deallocate()
    }

    /// The first byte of the copy.
    var start: UnsafePointer<UInt8>? { UnsafePointer(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)) }

    /// Throws libavif's reason (and its diagnostic, when it left one) unless `result` is OK.
    func check(_ result: avifResult, _ what: String) throws {
        guard result != AVIF_RESULT_OK else { return }
        var reason = library.describe(result)
        let detail = withUnsafeBytes(of: decoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if !detail.isEmpty { reason += ": \(detail)" }
        throw AVIFCodec.decodingError("\(what) (\(reason))")
    }
}
