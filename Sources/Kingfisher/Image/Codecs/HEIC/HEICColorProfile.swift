import CLibHEIF
import Foundation

/// Reads the colour space an image item declares in its `colr` properties.
enum HEICColorProfile {
    /// Profiles larger than this are refused as damage: real ICC profiles are a few kilobytes, and
    /// the largest printer profiles stay well under a few megabytes.
    static let maximumICCSize = 16 << 20

    /// The ICC profile (`colr` of type `prof` or `rICC`) of `handle` when it has one, else its
    /// `nclx` code points, else `nil`.
    ///
    /// An item may carry both an ICC and an `nclx` box; the ICC profile then wins, as libheif's own
    /// `heif_image_handle_get_color_profile_type` ranks them. A profile that cannot be read is
    /// treated as absent: the pixels are still worth showing, uncorrected.
    static func read(_ handle: HEIFLibrary.Handle, library: HEIFLibrary) -> EmbeddedColorProfile? {
        let type = library.colorProfileType(handle)
        if type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC {
            if let icc = icc(handle, library: library) { return .icc(icc) }
        }
        return nclx(handle, library: library)
    }

    /// The raw ICC bytes of `handle`, or `nil` when absent, empty, oversized or unreadable.
    private static func icc(_ handle: HEIFLibrary.Handle, library: HEIFLibrary) -> Data? {
        let size = library.rawColorProfileSize(handle)
        guard size > 0, size <= maximumICCSize else { return nil }
        var profile = Data(count: size)
        let error = profile.withUnsafeMutableBytes { library.rawColorProfile(handle, $0.baseAddress) }
        return error.succeeded ? profile : nil
    }

    /// The colour primaries and transfer characteristics of `handle`'s `nclx` box, or `nil`.
    private static func nclx(_ handle: HEIFLibrary.Handle, library: HEIFLibrary) -> EmbeddedColorProfile? {
        var profile: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = library.nclxColorProfile(handle, &profile)
        defer { library.nclxColorProfileFree(profile) }
        guard error.succeeded, let profile else { return nil }
        let primaries = profile.pointee.color_primaries.rawValue
        let transfer = profile.pointee.transfer_characteristics.rawValue
        guard primaries <= UInt32(UInt16.max), transfer <= UInt32(UInt16.max) else { return nil }
        return .cicp(colorPrimaries: UInt16(primaries), transferCharacteristics: UInt16(transfer))
    }
}
