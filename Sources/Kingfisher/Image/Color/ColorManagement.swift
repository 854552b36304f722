import Foundation

/// Converts decoded pixels from the colour space their file declares to sRGB.
enum ColorManagement {
    /// Converts `width × height` straight-alpha (not premultiplied) RGBA8 pixels in place from
    /// `profile` to sRGB, unless `options` asks to keep the source's colours.
    ///
    /// Decoders call this once per decoded frame, after decoding and before premultiplying.
    static func convertToSRGB(_ pixels: UnsafeMutableRawBufferPointer, width: Int, height: Int,
                              from profile: EmbeddedColorProfile?, options: ImageCreatingOptions) throws {
        // Filled in by the colour-management work in progress; pixels are left as decoded.
        _ = (pixels, width, height, profile, options)
    }
}
