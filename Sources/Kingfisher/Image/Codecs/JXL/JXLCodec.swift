import Foundation

/// JPEG XL decoding and encoding over libjxl 0.7 (opened on first use, see ``JXLLibrary``).
///
/// - The probe reads the codestream's `SizeHeader` and the start of its `ImageMetadata` in Swift
///   (``JXLCodestreamHeader``): the size as stored, the orientation (separate, as JPEG's EXIF
///   orientation is), the alpha channel and the loop count. For an animation it then asks libjxl
///   for the frame headers only (no frame is decoded; libjxl skips each frame's data by its table
///   of contents) to count the frames and read their durations; without libjxl, or when those
///   headers cannot all be read, an animation reports 1 frame.
/// - Decoding (`JXLDecoder.swift`) follows libjxl's events into 8-bit RGBA: libjxl applies the
///   orientation (so the image comes out upright and nothing turns it again) and composites
///   animation frames and layers; lossy (XYB) images are asked for in sRGB, any other image is
///   converted from the profile libjxl reports for its pixels unless that is sRGB, CMYK images
///   through their CMYK profile with the black channel, and PQ or HLG images are tone mapped (see
///   ``JXLOutputColor``). Animations decode all at once,
///   lazily through ``JXLFrameSource`` when `preloadAllFrames` is off, or to the first frame with
///   `onlyFirstFrame`. It runs on a pool of one worker per hardware thread, as `djxl` does by default.
/// - `minimumPixelSize` is ignored: libjxl 0.7 has no scaled decode. Its progressive events only
///   flush a full-size image upsampled from a coarser pass (and only for files encoded with such
///   passes), which saves neither memory nor, for a complete file, time.
/// - Encoding (`JXLEncoder.swift`) writes lossy (cjxl's quality-to-distance rule) or lossless
///   images at the requested effort, animations when the image has several frames.
enum JXLCodec: ImageCodec {
    static let format = ImageFormat.JXL

    /// The bare codestream's signature.
    static let codestreamSignature: [UInt8] = [0xFF, 0x0A]
    /// The container's first box, `JXL `.
    static let containerSignature: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    /// How much of the codestream the probe looks at; the headers it reads fit easily.
    static let headerBytes = 4096

    static func probe(_ data: Data) throws -> ImageHeader {
        let parsed: JXLCodestreamHeader
        do {
            let codestream = try data.withUnsafeBytes { try codestreamStart($0) }
            parsed = try JXLCodestreamHeader(codestream: codestream)
        } catch let error as ISOBMFFParseError {
            throw decodingError(error.description)
        }
        var header = ImageHeader(format: format, pixelWidth: parsed.width, pixelHeight: parsed.height,
                                 loopCount: parsed.isAnimated ? parsed.loopCount : 0,
                                 orientation: parsed.orientation, hasAlpha: parsed.hasAlpha)
        if parsed.isAnimated, let timing = try? frameTiming(data), timing.durations.count > 1 {
            header.frameCount = timing.durations.count
            header.frameDurations = timing.durations
            header.loopCount = timing.loopCount
        }
        return header
    }

    /// The durations of an animation's displayed frames and its loop count, from libjxl reading
    /// the frame headers only.
    static func frameTiming(_ data: Data) throws -> (durations: [TimeInterval], loopCount: Int) {
        try data.withUnsafeBytes { bytes in
            let session = try JXLDecodeSession(input: bytes, options: ImageCreatingOptions(), decodesPixels: false,
                                               threaded: false)
            let info = try session.readHeader()
            var durations: [TimeInterval] = []
            while let frame = try session.nextFrame() {
                durations.append(frame.duration)
            }
            return (durations, info.isAnimated ? info.loopCount : 0)
        }
    }

    /// Decodes a still image or an animation, upright, in sRGB, premultiplied.
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        // The Swift header first, so an over-limit size is refused before libjxl sees it.
        if let codestream = try? data.withUnsafeBytes({ try codestreamStart($0) }),
           let parsed = try? JXLCodestreamHeader(codestream: codestream) {
            try options.limits.checkFrame(width: parsed.width, height: parsed.height, format: format)
        }
        return try data.withUnsafeBytes { bytes in
            let session = try JXLDecodeSession(input: bytes, options: options, decodesPixels: true, threaded: true)
            let info = try session.readHeader()
            let lazy = info.isAnimated && !options.preloadAllFrames && !options.onlyFirstFrame
            var frames: [ImageFrame] = []
            while let frame = try session.nextFrame() {
                guard let pixels = frame.pixels else { break }
                frames.append(ImageFrame(unchecked: info.width, height: info.height, pixels: pixels, duration: frame.duration))
                if options.onlyFirstFrame || lazy || frame.isLast { break }
            }
            guard !frames.isEmpty else { throw decodingError("the image has no frame") }
            var image: KFCrossPlatformImage
            if frames.count == 1 {
                image = KFCrossPlatformImage(validated: [frames[0].withDuration(0)], loopCount: 0, scale: options.scale,
                                             isOpaque: !info.hasAlpha || frames[0].allOpaque)
            } else {
                image = KFCrossPlatformImage(validated: frames, loopCount: info.loopCount, scale: options.scale,
                                             isOpaque: !info.hasAlpha || frames.allSatisfy(\.allOpaque))
            }
            if info.isAnimated {
                image.animatedImageData = data
                if lazy, let source = try JXLFrameSource(data: data, options: options) {
                    image.frameSource = source
                    image.lazyLoopCount = info.loopCount
                }
            }
            return image
        }
    }

    /// Encodes `image` with libjxl (see `JXLEncoder.swift`).
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        try JXLEncoder.encode(image, options: options)
    }

    /// The first bytes (up to ``headerBytes``) of the codestream: the data itself when bare, else
    /// the `jxlc` box's payload or the `jxlp` boxes' payloads joined in file order.
    static func codestreamStart(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
        if bytes.starts(with: codestreamSignature) { return Array(bytes.prefix(headerBytes)) }
        guard bytes.starts(with: containerSignature) else {
            throw ISOBMFFParseError(description: "the data is neither a JPEG XL codestream nor a JPEG XL container")
        }
        let reader = ISOBMFFReader(bytes)
        var codestream: [UInt8] = []
        var offset = 0
        while bytes.count - offset >= 8, codestream.count < headerBytes {
            let box: ISOBMFFBox
            do {
                box = try reader.box(at: offset, before: bytes.count)
            } catch {
                // A truncated last box still gives what it holds when it is the codestream.
                guard let type = try? reader.fourCC(offset + 4, before: bytes.count),
                      type == FourCC("jxlc") || type == FourCC("jxlp") else { throw error }
                let header = (try? reader.u32(offset, before: bytes.count)) == 1 ? 16 : 8
                let skip = header + (type == FourCC("jxlp") ? 4 : 0)
                if offset + skip < bytes.count { codestream += bytes[(offset + skip)...].prefix(headerBytes) }
                break
            }
            if box.type == FourCC("jxlc") {
                codestream += bytes[box.payload].prefix(headerBytes)
                break
            }
            if box.type == FourCC("jxlp"), box.payload.count >= 4 {
                codestream += bytes[(box.payloadStart + 4)..<box.end].prefix(headerBytes - codestream.count)
            }
            offset = box.end
        }
        guard !codestream.isEmpty else {
            throw ISOBMFFParseError(description: "the container has no 'jxlc' or 'jxlp' codestream box")
        }
        return codestream
    }
}
