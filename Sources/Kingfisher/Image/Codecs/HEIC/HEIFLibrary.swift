import CLibHEIF
import Foundation

/// The libheif functions the HEIC decoder calls, looked up once in `libheif.so.1` (Debian's 1.15).
///
/// Each type below is the C declaration in `<libheif/heif.h>` spelled as a Swift function pointer.
struct HEIFLibrary: Sendable {
    typealias Context = OpaquePointer
    typealias Handle = OpaquePointer
    typealias Image = OpaquePointer

    let contextAlloc: @convention(c) () -> Context?
    let contextFree: @convention(c) (Context?) -> Void
    let readFromMemoryWithoutCopy: @convention(c) (Context?, UnsafeRawPointer?, Int, OpaquePointer?) -> heif_error
    let primaryImageHandle: @convention(c) (Context?, UnsafeMutablePointer<Handle?>?) -> heif_error
    let handleRelease: @convention(c) (Handle?) -> Void
    let handleWidth: @convention(c) (Handle?) -> Int32
    let handleHeight: @convention(c) (Handle?) -> Int32
    let handleISPEWidth: @convention(c) (Handle?) -> Int32
    let handleISPEHeight: @convention(c) (Handle?) -> Int32
    let handleHasAlpha: @convention(c) (Handle?) -> Int32
    let handleIsPremultipliedAlpha: @convention(c) (Handle?) -> Int32
    let handleLumaBitsPerPixel: @convention(c) (Handle?) -> Int32
    let numberOfThumbnails: @convention(c) (Handle?) -> Int32
    let thumbnailIDs: @convention(c) (Handle?, UnsafeMutablePointer<heif_item_id>?, Int32) -> Int32
    let thumbnail: @convention(c) (Handle?, heif_item_id, UnsafeMutablePointer<Handle?>?) -> heif_error
    let colorProfileType: @convention(c) (Handle?) -> heif_color_profile_type
    let rawColorProfileSize: @convention(c) (Handle?) -> Int
    let rawColorProfile: @convention(c) (Handle?, UnsafeMutableRawPointer?) -> heif_error
    let nclxColorProfile: @convention(c) (Handle?, UnsafeMutablePointer<UnsafeMutablePointer<heif_color_profile_nclx>?>?) -> heif_error
    let nclxColorProfileFree: @convention(c) (UnsafeMutablePointer<heif_color_profile_nclx>?) -> Void
    let decodingOptionsAlloc: @convention(c) () -> UnsafeMutablePointer<heif_decoding_options>?
    let decodingOptionsFree: @convention(c) (UnsafeMutablePointer<heif_decoding_options>?) -> Void
    let decodeImage: @convention(c) (Handle?, UnsafeMutablePointer<Image?>?, heif_colorspace, heif_chroma,
                                     UnsafePointer<heif_decoding_options>?) -> heif_error
    let imageWidth: @convention(c) (Image?, heif_channel) -> Int32
    let imageHeight: @convention(c) (Image?, heif_channel) -> Int32
    let imageBitsPerPixelRange: @convention(c) (Image?, heif_channel) -> Int32
    let planeReadonly: @convention(c) (Image?, heif_channel, UnsafeMutablePointer<Int32>?) -> UnsafePointer<UInt8>?
    let imageRelease: @convention(c) (Image?) -> Void

    /// The library, opened and bound on first use; the failure is kept and reported on every use.
    static let shared: Result<HEIFLibrary, DynamicLibraryError> = Result { () throws(DynamicLibraryError) in try HEIFLibrary() }

    private init() throws(DynamicLibraryError) {
        let lib = try DynamicLibrary(opening: ["libheif.so.1"])
        contextAlloc = try lib.function("heif_context_alloc", as: (@convention(c) () -> Context?).self)
        contextFree = try lib.function("heif_context_free", as: (@convention(c) (Context?) -> Void).self)
        readFromMemoryWithoutCopy = try lib.function("heif_context_read_from_memory_without_copy",
            as: (@convention(c) (Context?, UnsafeRawPointer?, Int, OpaquePointer?) -> heif_error).self)
        primaryImageHandle = try lib.function("heif_context_get_primary_image_handle",
            as: (@convention(c) (Context?, UnsafeMutablePointer<Handle?>?) -> heif_error).self)
        handleRelease = try lib.function("heif_image_handle_release", as: (@convention(c) (Handle?) -> Void).self)
        handleWidth = try lib.function("heif_image_handle_get_width", as: (@convention(c) (Handle?) -> Int32).self)
        handleHeight = try lib.function("heif_image_handle_get_height", as: (@convention(c) (Handle?) -> Int32).self)
        handleISPEWidth = try lib.function("heif_image_handle_get_ispe_width", as: (@convention(c) (Handle?) -> Int32).self)
        handleISPEHeight = try lib.function("heif_image_handle_get_ispe_height", as: (@convention(c) (Handle?) -> Int32).self)
        handleHasAlpha = try lib.function("heif_image_handle_has_alpha_channel", as: (@convention(c) (Handle?) -> Int32).self)
        handleIsPremultipliedAlpha = try lib.function("heif_image_handle_is_premultiplied_alpha",
                                                      as: (@convention(c) (Handle?) -> Int32).self)
        handleLumaBitsPerPixel = try lib.function("heif_image_handle_get_luma_bits_per_pixel",
                                                  as: (@convention(c) (Handle?) -> Int32).self)
        numberOfThumbnails = try lib.function("heif_image_handle_get_number_of_thumbnails",
                                              as: (@convention(c) (Handle?) -> Int32).self)
        thumbnailIDs = try lib.function("heif_image_handle_get_list_of_thumbnail_IDs",
            as: (@convention(c) (Handle?, UnsafeMutablePointer<heif_item_id>?, Int32) -> Int32).self)
        thumbnail = try lib.function("heif_image_handle_get_thumbnail",
            as: (@convention(c) (Handle?, heif_item_id, UnsafeMutablePointer<Handle?>?) -> heif_error).self)
        colorProfileType = try lib.function("heif_image_handle_get_color_profile_type",
                                            as: (@convention(c) (Handle?) -> heif_color_profile_type).self)
        rawColorProfileSize = try lib.function("heif_image_handle_get_raw_color_profile_size",
                                               as: (@convention(c) (Handle?) -> Int).self)
        rawColorProfile = try lib.function("heif_image_handle_get_raw_color_profile",
                                           as: (@convention(c) (Handle?, UnsafeMutableRawPointer?) -> heif_error).self)
        nclxColorProfile = try lib.function("heif_image_handle_get_nclx_color_profile",
            as: (@convention(c) (Handle?, UnsafeMutablePointer<UnsafeMutablePointer<heif_color_profile_nclx>?>?) -> heif_error).self)
        nclxColorProfileFree = try lib.function("heif_nclx_color_profile_free",
            as: (@convention(c) (UnsafeMutablePointer<heif_color_profile_nclx>?) -> Void).self)
        decodingOptionsAlloc = try lib.function("heif_decoding_options_alloc",
            as: (@convention(c) () -> UnsafeMutablePointer<heif_decoding_options>?).self)
        decodingOptionsFree = try lib.function("heif_decoding_options_free",
            as: (@convention(c) (UnsafeMutablePointer<heif_decoding_options>?) -> Void).self)
        decodeImage = try lib.function("heif_decode_image",
            as: (@convention(c) (Handle?, UnsafeMutablePointer<Image?>?, heif_colorspace, heif_chroma,
                                 UnsafePointer<heif_decoding_options>?) -> heif_error).self)
        imageWidth = try lib.function("heif_image_get_width", as: (@convention(c) (Image?, heif_channel) -> Int32).self)
        imageHeight = try lib.function("heif_image_get_height", as: (@convention(c) (Image?, heif_channel) -> Int32).self)
        imageBitsPerPixelRange = try lib.function("heif_image_get_bits_per_pixel_range",
                                                  as: (@convention(c) (Image?, heif_channel) -> Int32).self)
        planeReadonly = try lib.function("heif_image_get_plane_readonly",
            as: (@convention(c) (Image?, heif_channel, UnsafeMutablePointer<Int32>?) -> UnsafePointer<UInt8>?).self)
        imageRelease = try lib.function("heif_image_release", as: (@convention(c) (Image?) -> Void).self)
        let initialize = try lib.function("heif_init",
            as: (@convention(c) (UnsafeMutablePointer<heif_init_params>?) -> heif_error).self)
        // heif.h asks for heif_init before any other call; done once here, under the lazy static's
        // one-time initialisation, it registers the built-in codecs before two threads can race to
        // do it implicitly. It is never matched by heif_deinit: the library stays loaded for good.
        let status = initialize(nil)
        guard status.succeeded else {
            throw DynamicLibraryError(description: "heif_init failed: \(status.text)")
        }
    }
}

extension heif_error {
    /// True when libheif reported success.
    var succeeded: Bool { code == heif_error_Ok }

    /// libheif's message, which is never a null pointer by its contract but is checked anyway.
    var text: String {
        message.map { String(cString: $0) } ?? "libheif error \(code.rawValue).\(subcode.rawValue)"
    }
}
