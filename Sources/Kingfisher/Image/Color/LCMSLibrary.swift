import CLCMS2
import Foundation

/// The Little CMS 2 (2.14) functions colour management calls, looked up once in `liblcms2.so.2`.
///
/// Each field's type repeats the C declaration in `lcms2.h`. The library is opened the first time an
/// image needs converting, and its error log is silenced then (see ``silenceErrors``): a hostile
/// profile makes lcms2 report, never print or abort.
struct LCMSLibrary: Sendable {
    typealias Profile = UnsafeMutableRawPointer
    typealias Transform = UnsafeMutableRawPointer
    typealias ToneCurve = OpaquePointer

    let openProfileFromMem: @convention(c) (UnsafeRawPointer?, UInt32) -> Profile?
    let closeProfile: @convention(c) (Profile?) -> Int32
    let createSRGBProfile: @convention(c) () -> Profile?
    let createRGBProfile: @convention(c) (UnsafePointer<cmsCIExyY>?, UnsafePointer<cmsCIExyYTRIPLE>?,
                                          UnsafePointer<ToneCurve?>?) -> Profile?
    let buildParametricToneCurve: @convention(c) (OpaquePointer?, Int32, UnsafePointer<Double>?) -> ToneCurve?
    let freeToneCurve: @convention(c) (ToneCurve?) -> Void
    let createTransform: @convention(c) (Profile?, UInt32, Profile?, UInt32, UInt32, UInt32) -> Transform?
    let deleteTransform: @convention(c) (Transform?) -> Void
    let doTransform: @convention(c) (Transform?, UnsafeRawPointer?, UnsafeMutableRawPointer?, UInt32) -> Void
    let setLogErrorHandler: @convention(c) (cmsLogErrorHandlerFunction?) -> Void

    /// `TYPE_RGBA_8`: 8-bit RGB with one extra (alpha) byte, which a transform leaves alone.
    static let rgba8: UInt32 = 4 << 16 | 1 << 7 | 3 << 3 | 1
    /// `TYPE_CMYK_8`: 8-bit CMYK, 0 meaning no ink.
    static let cmyk8: UInt32 = 6 << 16 | 4 << 3 | 1
    /// `TYPE_CMYK_8_REV`: 8-bit CMYK stored inverted (255 meaning no ink), as Adobe writes JPEGs.
    static let cmyk8Reversed: UInt32 = cmyk8 | 1 << 13
    /// `INTENT_RELATIVE_COLORIMETRIC`, the intent every transform here uses (see ``ColorManagement``).
    static let relativeColorimetric: UInt32 = 1

    /// The table, or why lcms2 or one of its functions could not be loaded; opened on first use.
    static let shared: Result<LCMSLibrary, DynamicLibraryError> = Result { () throws(DynamicLibraryError) -> LCMSLibrary in
        let library = try LCMSLibrary()
        library.setLogErrorHandler(silenceErrors)
        return library
    }

    /// lcms2's error log, replaced: the failing call's return value already says what went wrong.
    private static let silenceErrors: cmsLogErrorHandlerFunction = { _, _, _ in }

    private init() throws(DynamicLibraryError) {
        let lib = try DynamicLibrary(opening: ["liblcms2.so.2"])
        openProfileFromMem = try lib.function(
            "cmsOpenProfileFromMem", as: (@convention(c) (UnsafeRawPointer?, UInt32) -> Profile?).self)
        closeProfile = try lib.function("cmsCloseProfile", as: (@convention(c) (Profile?) -> Int32).self)
        createSRGBProfile = try lib.function("cmsCreate_sRGBProfile", as: (@convention(c) () -> Profile?).self)
        createRGBProfile = try lib.function(
            "cmsCreateRGBProfile",
            as: (@convention(c) (UnsafePointer<cmsCIExyY>?, UnsafePointer<cmsCIExyYTRIPLE>?,
                                 UnsafePointer<ToneCurve?>?) -> Profile?).self)
        buildParametricToneCurve = try lib.function(
            "cmsBuildParametricToneCurve",
            as: (@convention(c) (OpaquePointer?, Int32, UnsafePointer<Double>?) -> ToneCurve?).self)
        freeToneCurve = try lib.function("cmsFreeToneCurve", as: (@convention(c) (ToneCurve?) -> Void).self)
        createTransform = try lib.function(
            "cmsCreateTransform",
            as: (@convention(c) (Profile?, UInt32, Profile?, UInt32, UInt32, UInt32) -> Transform?).self)
        deleteTransform = try lib.function("cmsDeleteTransform", as: (@convention(c) (Transform?) -> Void).self)
        doTransform = try lib.function(
            "cmsDoTransform",
            as: (@convention(c) (Transform?, UnsafeRawPointer?, UnsafeMutableRawPointer?, UInt32) -> Void).self)
        setLogErrorHandler = try lib.function(
            "cmsSetLogErrorHandler", as: (@convention(c) (cmsLogErrorHandlerFunction?) -> Void).self)
    }
}
