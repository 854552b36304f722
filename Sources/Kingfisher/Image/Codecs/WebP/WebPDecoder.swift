import CLibWebP
import Foundation

// Still WebP images: one `WebPDecode` call into premultiplied RGBA memory we own, optionally scaled.
// An image whose ICC profile needs converting decodes straight instead, is converted, then premultiplied.
extension WebPCodec {
    /// Decodes a still (non-animated) WebP of `features` from `bytes`.
    ///
    /// The limits are checked on the stored size, not the scaled one: libwebp's lossless decoder keeps
    /// the whole image in memory even when it scales the output.
    static func decodeStill(_ bytes: UnsafeRawBufferPointer, features: WebPBitstreamFeatures,
                            options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        let width = Int(features.width)
        let height = Int(features.height)
        try options.limits.checkFrame(width: width, height: height, format: format)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw decodingError("there are no bytes to read")
        }

        // The minimum applies to the upright image: turned a quarter, it bounds the other sides.
        let orientation = WebPEXIF.orientation(bytes)
        let output: (width: Int, height: Int) = options.minimumPixelSize.map {
            let minimum = orientation.swapsDimensions ? CGSize(width: $0.height, height: $0.width) : $0
            return scaledSize(width: width, height: height, minimum: minimum)
        } ?? (width, height)

        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw decodingError("libwebp rejected the decoder configuration (version mismatch)")
        }
        config.options.use_threads = 0
        if output != (width, height) {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(output.width)
            config.options.scaled_height = Int32(output.height)
        }

        let profile = WebPICC.profile(bytes)
        let converts = ColorManagement.needsConversion(profile, options: options)
        let stride = output.width * 4
        let count = stride * output.height
        let pixels = try PixelMemory.bytes(count: count) { buffer in
            config.output.colorspace = converts ? MODE_RGBA : MODE_rgbA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = count
            let status = WebPDecode(base, bytes.count, &config)
            let decodedWidth = Int(config.output.width)
            let decodedHeight = Int(config.output.height)
            // Releases nothing of ours (the memory is external) but whatever libwebp attached.
            WebPFreeDecBuffer(&config.output)
            guard status == VP8_STATUS_OK else {
                throw decodingError(describe(status))
            }
            guard decodedWidth == output.width, decodedHeight == output.height else {
                throw decodingError("libwebp decoded \(decodedWidth)×\(decodedHeight) pixels instead of \(output.width)×\(output.height)")
            }
            if converts {
                let raw = UnsafeMutableRawBufferPointer(buffer)
                try ColorManagement.convertToSRGB(raw, width: output.width, height: output.height, from: profile, options: options)
                _ = PixelConversion.premultiply(raw)
            }
        }

        let frame = orientation.apply(to: ImageFrame(unchecked: output.width, height: output.height, pixels: pixels))
        let opaque = features.has_alpha == 0 || frame.allOpaque
        return KFCrossPlatformImage(validated: [frame], loopCount: 0, scale: options.scale, isOpaque: opaque)
    }

    /// The size a `width`×`height` image decodes to under `minimumPixelSize`.
    ///
    /// The smallest size with the image's aspect ratio that is at least `minimum` in both directions,
    /// each side rounded up to whole pixels. A zero, negative or non-finite dimension of `minimum`
    /// sets no bound in that direction. The image is never enlarged: when a bound is at least the
    /// image's side, or no direction is bounded, the full size comes back. Every side is at least 1.
    ///
    /// For example 400×300 with a minimum of 100×50 gives 100×75 (the width binds); with 0×50 it
    /// gives 67×50 (only the height binds, 400 × 50 / 300 = 66.7 rounded up).
    static func scaledSize(width: Int, height: Int, minimum: CGSize) -> (width: Int, height: Int) {
        // A bound of the image's side or more means "full size", so clamping keeps the arithmetic small.
        func bound(_ value: CGFloat, side: Int) -> Int? {
            guard value.isFinite, value > 0 else { return nil }
            return value >= CGFloat(side) ? side : max(1, Int(value.rounded(.up)))
        }
        let minWidth = bound(minimum.width, side: width)
        let minHeight = bound(minimum.height, side: height)
        guard width > 0, height > 0, minWidth != nil || minHeight != nil else { return (width, height) }

        // The binding direction is the one needing the larger fraction of its side:
        // minWidth / width against minHeight / height, compared by cross-multiplying.
        let widthBinds: Bool
        switch (minWidth, minHeight) {
        case let (w?, h?): widthBinds = w * height >= h * width
        case (_?, nil): widthBinds = true
        default: widthBinds = false
        }
        if widthBinds, let w = minWidth {
            guard w < width else { return (width, height) }
            return (w, max(1, ceilDivide(height * w, width)))
        }
        if let h = minHeight {
            guard h < height else { return (width, height) }
            return (max(1, ceilDivide(width * h, height)), h)
        }
        return (width, height)
    }

    /// `numerator / denominator` rounded up, for positive operands.
    private static func ceilDivide(_ numerator: Int, _ denominator: Int) -> Int {
        (numerator + denominator - 1) / denominator
    }
}
