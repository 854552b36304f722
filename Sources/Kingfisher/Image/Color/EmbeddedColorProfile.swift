import Foundation

/// The colour space an image file declares for its pixels.
enum EmbeddedColorProfile: Sendable, Hashable {
    /// An ICC profile, as embedded (JPEG `APP2`, PNG `iCCP`, WebP `ICCP`, AVIF/HEIC `colr` `prof`/`rICC`, JPEG XL).
    case icc(Data)
    /// Coding-independent code points (ITU-T H.273), as AVIF and HEIC `colr` `nclx` boxes carry them.
    /// The matrix coefficients are not needed: pixels arrive here as RGB.
    case cicp(colorPrimaries: UInt16, transferCharacteristics: UInt16)
}
