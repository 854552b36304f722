import Foundation

/// The colour spaces that H.273 code points (AVIF and HEIC `nclx`) describe, as matrix/TRC profiles.
enum CICPProfile {
    /// What the code points ask of a decoded image.
    enum Resolution: Equatable {
        /// sRGB already (BT.709 primaries with an sRGB-like transfer), or nothing that can be done.
        case unchanged
        /// A matrix/TRC space to convert from.
        case convert(MatrixShaperProfile)
    }

    /// The profile for `primaries` and `transfer`.
    ///
    /// - Primaries 1 (BT.709, sRGB's) and 2 (unspecified, taken as BT.709), 9 (BT.2020), 11 (DCI-P3,
    ///   with its own white), 12 (Display P3) are known; others leave the pixels as they are.
    /// - Transfers 13 (sRGB), 1, 6, 14, 15 (BT.709, BT.601, BT.2020: display-referred, shown with
    ///   sRGB's curve as browsers and ImageIO show them) and 2 (unspecified) use sRGB's curve; 4 and
    ///   5 are pure gammas 2.2 and 2.8, 8 is linear.
    /// - PQ (16) and HLG (18) are HDR: they are not a matrix/TRC space but are tone mapped by
    ///   ``HDRToneMapping``, which the decoders run on 16-bit samples before this point; here they,
    ///   and any other transfer, give `.unchanged`.
    static func resolve(primaries: UInt16, transfer: UInt16) -> Resolution {
        let curve: ToneCurve
        switch transfer {
        case 1, 2, 6, 13, 14, 15:
            curve = sRGBCurve
        case 4: curve = .gamma(2.2)
        case 5: curve = .gamma(2.8)
        case 8: curve = .gamma(1)
        default: return .unchanged
        }
        if primaries == 1 || primaries == 2, curve == sRGBCurve { return .unchanged }
        guard let colorants = colorants(primaries: primaries) else { return .unchanged }
        return .convert(MatrixShaperProfile(colorants: colorants, curves: [curve, curve, curve]))
    }

    /// The D50-adapted colorants of H.273 `primaries`: 1 (BT.709, sRGB's) and 2 (unspecified,
    /// taken as BT.709), 9 (BT.2020), 11 (DCI-P3, with its own white), 12 (Display P3); `nil` for
    /// any other.
    static func colorants(primaries: UInt16) -> [[Double]]? {
        switch primaries {
        case 1, 2:
            return ColorMath.sRGBColorants
        case 9:
            return ColorMath.colorants(red: (0.708, 0.292), green: (0.170, 0.797), blue: (0.131, 0.046),
                                       white: ColorMath.d65)
        case 11:
            return ColorMath.colorants(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060),
                                       white: (0.314, 0.351))
        case 12:
            return ColorMath.colorants(red: (0.680, 0.320), green: (0.265, 0.690), blue: (0.150, 0.060),
                                       white: ColorMath.d65)
        default:
            return nil
        }
    }

    /// sRGB's transfer as an ICC parametric curve (function 3), as lcms2's own sRGB profile has it.
    static let sRGBCurve = ToneCurve.parametric(function: 3, values: [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
}
