import Foundation
import KingfisherCShims

/// JPEG decoding and encoding over libjpeg-turbo, through the `kf_jpeg` shim that keeps libjpeg's
/// `longjmp` error handling inside C.
///
/// Decodes baseline, progressive, grayscale, CMYK and YCCK files, applies the EXIF orientation, and
/// scales by 1/2, 1/4 or 1/8 in the DCT when `minimumPixelSize` allows.
///
/// An embedded ICC profile (APP2 `ICC_PROFILE` chunks, joined in sequence order by libjpeg-turbo)
/// converts the pixels to sRGB (see ``ColorManagement``); CMYK and YCCK files go through their CMYK
/// profile with lcms2, or without one by the naive formula. Adobe's inverted CMYK (an APP14 marker)
/// is recognised.
enum JPEGCodec: ImageCodec {
    static let format = ImageFormat.JPEG
    /// Progressive files with more scans than this are refused: each scan repeats the whole
    /// decoding work, so a hostile file could otherwise take minutes.
    static let maxScans: Int32 = 500

    static func probe(_ data: Data) throws -> ImageHeader {
        let header = try data.withUnsafeBytes { try JPEGHeaderParser.parse($0) }
        guard header.width > 0, header.height > 0 else {
            throw decodingError("the frame header gives a size of \(header.width)×\(header.height)")
        }
        return ImageHeader(format: .JPEG, pixelWidth: header.width, pixelHeight: header.height,
                           orientation: header.orientation, hasAlpha: false)
    }

    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        let frame = try data.withUnsafeBytes { bytes -> ImageFrame in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                throw KingfisherError.processorError(reason: .emptyImageData)
            }
            var header = kf_jpeg_header()
            var message = [CChar](repeating: 0, count: 256)
            guard let decoder = kf_jpeg_decoder_create(base, bytes.count, maxScans, &header, &message, message.count) else {
                throw decodingError(String(cMessage: message))
            }
            defer { kf_jpeg_decoder_destroy(decoder) }
            let width = Int(header.width)
            let height = Int(header.height)
            try options.limits.checkFrame(width: width, height: height, format: .JPEG)
            var orientation = ImageOrientation.up
            if let exif = header.exif {
                orientation = EXIFOrientation.read(UnsafeRawBufferPointer(start: exif, count: header.exif_size))
            }
            let denominator = scaleDenominator(width: width, height: height, orientation: orientation,
                                               minimum: options.minimumPixelSize)
            var outWidth: Int32 = 0
            var outHeight: Int32 = 0
            var cmyk: Int32 = 0
            guard kf_jpeg_decoder_start(decoder, denominator, &outWidth, &outHeight, &cmyk, &message, message.count) != 0 else {
                throw decodingError(String(cMessage: message))
            }
            let rowBytes = Int(outWidth) * 4
            let pixelCount = Int(outWidth) * Int(outHeight)
            let profile = header.icc.map { Data(bytes: $0, count: header.icc_size) }
            let converter = cmyk == 0 ? ColorManagement.converter(for: profile.map { .icc($0) }, options: options) : nil
            let pixels = try PixelMemory.bytes(count: rowBytes * Int(outHeight)) { buffer in
                guard let target = buffer.baseAddress else {
                    throw decodingError("no memory for \(outWidth)×\(outHeight) pixels")
                }
                if let converter, pixelCount >= MatrixShaperTransform.parallelPixelCount {
                    try readConverting(decoder, into: target, rowBytes: rowBytes, width: Int(outWidth),
                                       height: Int(outHeight), conversion: converter)
                    return
                }
                guard kf_jpeg_decoder_read(decoder, target, rowBytes, &message, message.count) != 0 else {
                    throw decodingError(String(cMessage: message))
                }
                if cmyk != 0 {
                    ColorManagement.convertCMYKToSRGB(UnsafeMutableRawBufferPointer(buffer), pixelCount: pixelCount,
                                                      inverted: header.saw_adobe_marker != 0, profile: profile, options: options)
                } else {
                    converter?.apply(UnsafeMutableRawPointer(target), pixelCount: pixelCount)
                }
            }
            let stored = ImageFrame(unchecked: Int(outWidth), height: Int(outHeight), pixels: pixels)
            return orientation.apply(to: stored)
        }
        return KFCrossPlatformImage(validated: [frame], loopCount: 0, scale: options.scale, isOpaque: true)
    }

    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        let frame = image.firstFrame
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = frame.pixels.withUnsafeBufferPointer { pixels -> Int32 in
            guard let base = pixels.baseAddress else { return 0 }
            return kf_jpeg_encode(base, Int32(frame.width), Int32(frame.height), frame.bytesPerRow,
                                  Int32(options.qualityPercent), options.progressive ? 1 : 0, &output, &size, &message, message.count)
        }
        guard status != 0, let bytes = output else {
            throw encodingError(message[0] == 0 ? "libjpeg produced no output" : String(cMessage: message))
        }
        return Data(bytesNoCopy: bytes, count: Int(size), deallocator: .custom { pointer, _ in kf_jpeg_free(pointer) })
    }

    /// The largest DCT scaling (8, 4, 2 or 1) that keeps the upright result at least `minimum`.
    static func scaleDenominator(width: Int, height: Int, orientation: ImageOrientation, minimum: CGSize?) -> Int32 {
        guard let minimum else { return 1 }
        var needWidth = minimum.width.isFinite ? Int(minimum.width.rounded(.up)) : 0
        var needHeight = minimum.height.isFinite ? Int(minimum.height.rounded(.up)) : 0
        if orientation.swapsDimensions { swap(&needWidth, &needHeight) }
        for denominator in [8, 4, 2] {
            let scaledWidth = (width + denominator - 1) / denominator
            let scaledHeight = (height + denominator - 1) / denominator
            if scaledWidth >= needWidth, scaledHeight >= needHeight {
                return Int32(denominator)
            }
        }
        return 1
    }
}
