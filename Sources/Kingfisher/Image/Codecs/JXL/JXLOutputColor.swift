import CLibJXL
import Foundation

/// How the pixels of one JPEG XL file reach sRGB, settled when libjxl reports the colour encoding.
///
/// - An XYB image (lossy VarDCT) is asked for sRGB, which libjxl produces itself, unless it is HDR.
/// - PQ or HLG (an XYB image asked for its own encoding): 16-bit samples tone mapped by
///   ``HDRToneMapping``, as AVIF's are.
/// - CMYK (a CMYK ICC profile and a black extra channel): libjxl hands out C, M, Y in the colour
///   channels and K in the extra channel, all 1.0 for no ink (JPEG XL's convention); they go through
///   the profile with lcms2 as inverted CMYK (``ColorManagement/convertCMYKToSRGB(_:pixelCount:inverted:profile:options:)``).
/// - Anything else: the pixels in their own space, converted from the profile ``ColorManagement`` reads.
/// With `keepsSourceColors`, PQ and HLG are left as decoded, and CMYK is shown by the naive formula.
enum JXLOutputColor {
    /// sRGB already: nothing to do.
    case sRGB
    /// RGBA in the space `profile` describes.
    case profile(EmbeddedColorProfile)
    /// 16-bit PQ or HLG RGBA.
    case toneMapped(HDRToneMapping)
    /// CMY in the colour channels, K in extra channel `black`, through the CMYK ICC profile `icc`.
    case cmyk(icc: Data, black: UInt32)

    /// Settles the output of `decoder`, which has just reported its colour encoding, asking libjxl
    /// for the encoding that suits it.
    static func settle(_ lib: JXLLibrary, _ decoder: JXLLibrary.Decoder, usesXYB: Bool, isGray: Bool,
                       options: ImageCreatingOptions) -> JXLOutputColor {
        if !options.keepsSourceColors, let (mapping, original) = hdrEncoding(lib, decoder) {
            if usesXYB {
                var encoding = original
                _ = lib.decoderSetPreferredColorProfile(decoder, &encoding)
            }
            return .toneMapped(mapping)
        }
        if usesXYB {
            var srgb = JxlColorEncoding()
            lib.colorEncodingSetToSRGB(&srgb, isGray ? 1 : 0)
            _ = lib.decoderSetPreferredColorProfile(decoder, &srgb)
        }
        var encoding = JxlColorEncoding()
        if lib.decoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
           isSRGB(encoding) {
            return .sRGB
        }
        // A grey profile does not describe the RGBA libjxl hands out (grey copied to R, G and B).
        guard !isGray, let icc = iccProfile(lib, decoder) else { return .sRGB }
        if ICCProfileReader(icc)?.colorSpace == "CMYK", let black = blackChannel(lib, decoder) {
            return .cmyk(icc: icc, black: black)
        }
        return .profile(.icc(icc))
    }

    /// The ICC profile of the data libjxl hands out, if it gives one of a sane size.
    private static func iccProfile(_ lib: JXLLibrary, _ decoder: JXLLibrary.Decoder) -> Data? {
        var size = 0
        guard lib.decoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
              size > 0, size <= 1 << 26 else { return nil }
        var icc = [UInt8](repeating: 0, count: size)
        guard lib.decoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &icc, size) == JXL_DEC_SUCCESS
        else { return nil }
        return Data(icc)
    }

    /// The index of the first extra channel of type black, if there is one.
    private static func blackChannel(_ lib: JXLLibrary, _ decoder: JXLLibrary.Decoder) -> UInt32? {
        var basic = JxlBasicInfo()
        guard lib.decoderGetBasicInfo(decoder, &basic) == JXL_DEC_SUCCESS else { return nil }
        for index in 0..<basic.num_extra_channels {
            var channel = JxlExtraChannelInfo()
            if lib.decoderGetExtraChannelInfo(decoder, Int(index), &channel) == JXL_DEC_SUCCESS,
               channel.type == JXL_CHANNEL_BLACK {
                return index
            }
        }
        return nil
    }

    /// The tone mapping for the file's own colour encoding when its transfer is PQ or HLG and its
    /// primaries are known, with that encoding.
    private static func hdrEncoding(_ lib: JXLLibrary, _ decoder: JXLLibrary.Decoder) -> (HDRToneMapping, JxlColorEncoding)? {
        var original = JxlColorEncoding()
        guard lib.decoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) == JXL_DEC_SUCCESS
        else { return nil }
        let transfer = UInt16(truncatingIfNeeded: original.transfer_function.rawValue)
        guard HDRToneMapping.Transfer(rawValue: transfer) != nil, let primaries = cicpPrimaries(of: original),
              let mapping = HDRToneMapping(primaries: primaries, transfer: transfer) else { return nil }
        return (mapping, original)
    }

    /// The H.273 primaries of a colour encoding (BT.709 for grey), or `nil` for custom ones.
    static func cicpPrimaries(of encoding: JxlColorEncoding) -> UInt16? {
        if encoding.color_space == JXL_COLOR_SPACE_GRAY { return 1 }
        guard encoding.color_space == JXL_COLOR_SPACE_RGB else { return nil }
        switch (encoding.primaries, encoding.white_point) {
        case (JXL_PRIMARIES_SRGB, JXL_WHITE_POINT_D65): return 1
        case (JXL_PRIMARIES_2100, JXL_WHITE_POINT_D65): return 9
        case (JXL_PRIMARIES_P3, JXL_WHITE_POINT_D65): return 12
        case (JXL_PRIMARIES_P3, JXL_WHITE_POINT_DCI): return 11
        default: return nil
        }
    }

    /// True for sRGB (or grey with sRGB's white point and curve): nothing to convert.
    static func isSRGB(_ encoding: JxlColorEncoding) -> Bool {
        guard encoding.white_point == JXL_WHITE_POINT_D65, encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB else {
            return false
        }
        return encoding.color_space == JXL_COLOR_SPACE_GRAY
            || (encoding.color_space == JXL_COLOR_SPACE_RGB && encoding.primaries == JXL_PRIMARIES_SRGB)
    }
}
