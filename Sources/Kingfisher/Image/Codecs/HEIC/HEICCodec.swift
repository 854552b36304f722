import Foundation

/// HEIC (HEIF with HEVC): decoded by libheif 1.15, opened on first use; never encoded.
///
/// Decoding reads the primary image: grids of tiles assembled, 8- or 10-bit (10-bit is reduced
/// to 8 bits by libheif), alpha kept, the item's rotation, mirroring and crop applied once by
/// libheif, colours converted to sRGB from an ICC profile or `nclx` code points. Depth maps and
/// other auxiliary images are ignored. Under ``ImageCreatingOptions/minimumPixelSize`` a stored
/// thumbnail is decoded instead when it is large enough (see ``HEICThumbnailChoice``). An image
/// sequence decodes its primary still item; one with only a track cannot be read by libheif 1.15
/// and throws. EXIF and XMP are not kept: decoded images carry no metadata.
///
/// Encoding throws: writing HEVC would need an HEVC encoder, whose patents are licensed
/// separately, and Debian's libheif ships x265 only as an optional plugin.
enum HEICCodec: ImageCodec {
    static let format = ImageFormat.HEIC

    /// Reads the header from the ISO-BMFF boxes, without libheif (see ``ISOBMFFProbe``).
    static func probe(_ data: Data) throws -> ImageHeader { try ISOBMFFProbe.probe(data, format: format) }

    /// Decodes the primary image of `data` (see the type's documentation).
    static func decode(_ data: Data, options: ImageCreatingOptions) throws -> KFCrossPlatformImage {
        try decodePrimary(data, options: options)
    }

    /// Throws: HEIC is decode-only.
    static func encode(_ image: KFCrossPlatformImage, options: ImageEncodingOptions) throws -> Data {
        throw encodingError("HEIC is decode-only: Kingfisher does not encode HEVC, whose encoders need a patent "
            + "licence; encode as PNG, JPEG, WebP or AVIF instead")
    }
}
