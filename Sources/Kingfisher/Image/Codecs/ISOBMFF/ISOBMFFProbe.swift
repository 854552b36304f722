import Foundation

/// The header probe of AVIF and HEIC, read from their ISO-BMFF boxes without decoding a pixel.
///
/// The probe reads `ftyp`, then in `meta` the primary item (`pitm`), the item types (`iinf`) and
/// the primary item's properties (`ispe` for the size, `clap` when it crops, `irot` and `imir` for
/// the orientation). The size is reported as coded, before rotation, with the rotation and mirror
/// mapped to an ``ImageOrientation``, as JPEG reports its EXIF orientation. A `grid` image reports
/// the output size from its own `ispe`. An image sequence (`avis`, `msf1`, `hevs`, …) reports
/// the sample count of its first picture track as its frame count. Alpha is reported when an
/// alpha auxiliary image is declared.
enum ISOBMFFProbe {
    /// The header of `data`, which is `format` (AVIF or HEIC).
    static func probe(_ data: Data, format: ImageFormat) throws -> ImageHeader {
        do {
            return try data.withUnsafeBytes { bytes in
                try ISOBMFFLayout(ISOBMFFReader(bytes)).header(format: format)
            }
        } catch let error as ISOBMFFParseError {
            throw KingfisherError.processorError(reason: .decodingFailed(format: format, description: error.description))
        }
    }
}
