import CLibWebP
import Foundation

/// WebP decoding and encoding over libwebp (decode, demux and mux).
///
/// - Still images (lossy, lossless, with or without alpha) decode straight into premultiplied RGBA
///   (`MODE_rgbA`) in memory we own, and can be scaled while decoding (see ``decode(_:options:)``).
/// - Animations decode through `WebPAnimDecoder` into full-canvas frames; they always decode at full
///   size.
/// - An ICC profile (the `ICCP` chunk, see ``WebPICC``) that is not sRGB's makes stills and animation
///   frames decode straight (`MODE_RGBA`) instead, convert to sRGB (see ``ColorManagement``), then
///   premultiply; `keepsSourceColors` keeps the stored values.
/// - An EXIF orientation (the `EXIF` chunk of an extended file whose VP8X flag says it has one,
///   see ``WebPEXIF``) is applied once to every decoded frame and reported by ``probe(_:)``.
/// - Encoding writes a still image with `WebPEncode`, or an animation with `WebPAnimEncoder` when the
///   image has more than one frame.
///
/// The work is spread over this folder: `WebPDecoder.swift` (still images and the scaling rule),
/// `WebPAnimationDecoder.swift` (animations and the demux probe) and `WebPEncoder.swift`.
enum WebPCodec: ImageCodec {
    static let format = ImageFormat.WebP

    /// Reads size, alpha and animation from the bitstream features; for an animation also the frame
    /// and loop counts from the demuxer. No pixel is decoded.
    static func probe(_ data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { bytes in
            let features = try readFeatures(bytes)
            var header: ImageHeader
            if features.has_animation != 0 {
                header = try probeAnimation(bytes, hasAlpha: features.has_alpha != 0)
            } else {
                header = ImageHeader(format: format, pixelWidth: Int(features.width), pixelHeight: Int(features.height),
                                     hasAlpha: features.has_alpha != 0)
            }
            header.orientation = WebPEXIF.orientation(bytes)
            return header
        }
    }

    /// Decodes a still image, or an animation into full-canvas frames.
    ///
    /// A still image honours `options.minimumPixelSize`: libwebp scales it while decoding to the
    /// smallest size with the image's aspect ratio that is at least the minimum in every bounded
    /// direction (see ``scaledSize(width:height:minimum:)``). Animations ignore it and decode at full
    /// size. `onlyFirstFrame` turns an animation into a still image of its first canvas.
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        try data.withUnsafeBytes { bytes in
            let features = try readFeatures(bytes)
            if features.has_animation != 0 {
                return try decodeAnimation(bytes, features: features, options: options)
            }
            return try decodeStill(bytes, features: features, options: options)
        }
    }

    /// Encodes a still image with `WebPEncode`, an animation with `WebPAnimEncoder`.
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        if image.isAnimated {
            return try encodeAnimation(image, options: options)
        }
        return try encodeStill(image.firstFrame, isOpaque: image.isOpaque, options: options)
    }

    // MARK: - Shared helpers

    /// `WebPGetFeatures` on the whole input; throws when the header cannot be read.
    static func readFeatures(_ bytes: UnsafeRawBufferPointer) throws -> WebPBitstreamFeatures {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else {
            throw decodingError("there are no bytes to read")
        }
        var features = WebPBitstreamFeatures()
        let status = WebPGetFeatures(base, bytes.count, &features)
        guard status == VP8_STATUS_OK else {
            throw decodingError("the header could not be read: \(describe(status))")
        }
        guard features.width > 0, features.height > 0 else {
            throw decodingError("the header gives a size of \(features.width)×\(features.height) pixels")
        }
        return features
    }

    /// A readable reason for a libwebp decoding status.
    static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OK: return "no error"
        case VP8_STATUS_OUT_OF_MEMORY: return "out of memory"
        case VP8_STATUS_INVALID_PARAM: return "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error (corrupt data)"
        case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature"
        // A one-shot `WebPDecode` of lossy data that stops early reports SUSPENDED, not NOT_ENOUGH_DATA.
        case VP8_STATUS_SUSPENDED: return "not enough data (truncated; decoding suspended)"
        case VP8_STATUS_USER_ABORT: return "decoding aborted"
        case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data (truncated)"
        default: return "libwebp status \(status.rawValue)"
        }
    }
}
