import Foundation

/// Converts decoded pixels from the colour space their file declares to sRGB.
///
/// - ICC profiles: a matrix/TRC profile (Display P3, Adobe RGB, most camera and phone profiles, and
///   gray TRC profiles) is converted without lcms2 (``MatrixShaperTransform``), within ±1 of it; any
///   other RGB profile (lookup tables) and every CMYK profile goes through lcms2 2.14, opened on
///   first use. A profile that is sRGB in all but name changes nothing and costs nothing.
/// - Cost: the matrix/TRC loop (``MatrixShaperLoop``, in Swift) takes about 1.6 ns a pixel on one
///   core here, against 8–14 ns for lcms2's own 8-bit transform; a large JPEG converts its rows on a
///   second thread while libjpeg decodes the next ones.
/// - Intent: relative colorimetric, without black-point compensation, as libvips (and so imgproxy)
///   uses by default. For matrix/TRC profiles lcms2 gives the same result for the perceptual intent,
///   which they cannot carry; for lookup-table profiles (CMYK) it keeps in-gamut colours exact
///   rather than compressing the whole gamut, which is what a display of photos wants.
/// - H.273 code points: see ``CICPProfile/resolve(primaries:transfer:)``. PQ and HLG (from CICP
///   code points or a JPEG XL colour encoding) are tone mapped to SDR by ``HDRToneMapping`` in the
///   AVIF and JPEG XL decoders, on 16-bit samples, before anything here sees them.
/// - Failures never fail a decode: an unreadable, corrupt or hostile profile, a profile whose colour
///   space is not the pixels', or lcms2 missing from the system (for the profiles that need it)
///   leave the pixels as decoded (a CMYK JPEG then falls back to
///   ``convertCMYKNaively(_:pixelCount:inverted:)``).
enum ColorManagement {
    /// Converts `width × height` straight-alpha (not premultiplied) RGBA8 pixels in place from
    /// `profile` to sRGB, unless `options` asks to keep the source's colours.
    ///
    /// Decoders call this once per decoded frame, after decoding and before premultiplying. Alpha is
    /// never changed. It does not throw today: every failure leaves the pixels as they are.
    static func convertToSRGB(_ pixels: UnsafeMutableRawBufferPointer, width: Int, height: Int,
                              from profile: EmbeddedColorProfile?, options: ImageCreatingOptions) throws {
        guard let profile, !options.keepsSourceColors, width > 0, height > 0 else { return }
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels.count / 4 >= pixelCount else { return }
        switch conversion(for: profile) {
        case .unchanged:
            return
        case .matrixShaper(let transform):
            transform.apply(pixels, pixelCount: pixelCount)
        case .lcms(let transform):
            transform.apply(pixels, pixelCount: pixelCount, input: .rgba)
        }
    }

    /// Whether ``convertToSRGB(_:width:height:from:options:)`` would change any pixel, for decoders
    /// that can otherwise premultiply while they decode.
    static func needsConversion(_ profile: EmbeddedColorProfile?, options: ImageCreatingOptions) -> Bool {
        converter(for: profile, options: options) != nil
    }

    /// The conversion ``convertToSRGB(_:width:height:from:options:)`` would apply, for a decoder that
    /// converts rows as they come (the JPEG decoder, while libjpeg decodes the next ones); `nil` when
    /// the pixels stay as decoded.
    static func converter(for profile: EmbeddedColorProfile?, options: ImageCreatingOptions) -> ColorConversion? {
        guard let profile, !options.keepsSourceColors else { return nil }
        let conversion = conversion(for: profile)
        if case .unchanged = conversion { return nil }
        return conversion
    }

    /// Converts `pixelCount` 4-byte CMYK pixels in place to opaque sRGB RGBA, through `profile`
    /// (an embedded CMYK ICC profile) with lcms2, else naively.
    ///
    /// `inverted` says the file stores 255 for no ink (Adobe's APP14 convention, which every CMYK
    /// JPEG written by Photoshop follows). With `keepsSourceColors`, no profile, or a profile lcms2
    /// cannot use, the naive formula applies.
    static func convertCMYKToSRGB(_ pixels: UnsafeMutableRawBufferPointer, pixelCount: Int, inverted: Bool,
                                  profile: Data?, options: ImageCreatingOptions) {
        guard let profile, !options.keepsSourceColors else {
            convertCMYKNaively(pixels, pixelCount: pixelCount, inverted: inverted)
            return
        }
        let input: LCMSTransform.Input = inverted ? .cmykInverted : .cmyk
        let key = ColorTransformCache.key(icc: profile, layout: inverted ? "cmyk-inverted" : "cmyk")
        let conversion = ColorTransformCache.conversion(for: key) {
            LCMSTransform(profile: profile, input: input).map { .lcms($0) } ?? .unchanged
        }
        guard case .lcms(let transform) = conversion else {
            convertCMYKNaively(pixels, pixelCount: pixelCount, inverted: inverted)
            return
        }
        transform.apply(pixels, pixelCount: pixelCount, input: input)
    }

    /// CMYK to opaque RGBA without a profile: each channel is `(1 − ink) × (1 − black)`.
    ///
    /// This is the textbook formula (what libjpeg-turbo's own CMYK users and browsers without a
    /// profile use); it ignores ink behaviour, so colours come out brighter and more saturated than
    /// print, but neutral stays neutral.
    static func convertCMYKNaively(_ pixels: UnsafeMutableRawBufferPointer, pixelCount: Int, inverted: Bool) {
        guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), pixels.count >= pixelCount * 4 else {
            return
        }
        for offset in stride(from: 0, to: pixelCount * 4, by: 4) {
            var c = base[offset], m = base[offset &+ 1], y = base[offset &+ 2], k = base[offset &+ 3]
            if !inverted {
                c = 255 &- c; m = 255 &- m; y = 255 &- y; k = 255 &- k
            }
            base[offset] = PixelConversion.multiply(c, UInt32(k))
            base[offset &+ 1] = PixelConversion.multiply(m, UInt32(k))
            base[offset &+ 2] = PixelConversion.multiply(y, UInt32(k))
            base[offset &+ 3] = 255
        }
    }

    /// The cached conversion for an RGB image's `profile`.
    static func conversion(for profile: EmbeddedColorProfile) -> ColorConversion {
        switch profile {
        case .cicp(let primaries, let transfer):
            return ColorTransformCache.conversion(for: "cicp:\(primaries):\(transfer)") {
                guard case .convert(let shaper) = CICPProfile.resolve(primaries: primaries, transfer: transfer) else {
                    return .unchanged
                }
                return matrixConversion(shaper)
            }
        case .icc(let data):
            return ColorTransformCache.conversion(for: ColorTransformCache.key(icc: data, layout: "rgb")) {
                let reader = ICCProfileReader(data)
                if let shaper = reader?.matrixShaper, let transform = MatrixShaperTransform(shaper) {
                    return transform.isIdentity ? .unchanged : .matrixShaper(transform)
                }
                guard reader == nil || reader?.colorSpace == "RGB " else { return .unchanged }
                return LCMSTransform(profile: data, input: .rgba).map { .lcms($0) } ?? .unchanged
            }
        }
    }

    /// The Swift conversion of `shaper`, or nothing when it changes nothing.
    private static func matrixConversion(_ shaper: MatrixShaperProfile) -> ColorConversion {
        guard let transform = MatrixShaperTransform(shaper), !transform.isIdentity else { return .unchanged }
        return .matrixShaper(transform)
    }
}
