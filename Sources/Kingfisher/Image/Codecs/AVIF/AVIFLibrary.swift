import CLibAVIF
import Foundation

/// The libavif 0.11 functions the AVIF codec calls, looked up once in `libavif.so.15`.
///
/// Each field's type repeats the C declaration in `avif/avif.h` (0.11.1); the library is opened on
/// first use, so a program that never meets an AVIF never maps libavif or its AV1 codecs.
struct AVIFLibrary: Sendable {
    typealias Decoder = UnsafeMutablePointer<avifDecoder>
    typealias Encoder = UnsafeMutablePointer<avifEncoder>
    typealias Image = UnsafeMutablePointer<avifImage>

    let resultToString: @convention(c) (avifResult) -> UnsafePointer<CChar>?

    let decoderCreate: @convention(c) () -> Decoder?
    let decoderDestroy: @convention(c) (Decoder?) -> Void
    let decoderSetIOMemory: @convention(c) (Decoder?, UnsafePointer<UInt8>?, Int) -> avifResult
    let decoderParse: @convention(c) (Decoder?) -> avifResult
    let decoderNextImage: @convention(c) (Decoder?) -> avifResult
    let decoderReset: @convention(c) (Decoder?) -> avifResult
    let decoderNthImageTiming: @convention(c) (UnsafePointer<avifDecoder>?, UInt32,
                                               UnsafeMutablePointer<avifImageTiming>?) -> avifResult

    let rgbImageSetDefaults: @convention(c) (UnsafeMutablePointer<avifRGBImage>?, UnsafePointer<avifImage>?) -> Void
    let imageYUVToRGB: @convention(c) (UnsafePointer<avifImage>?, UnsafeMutablePointer<avifRGBImage>?) -> avifResult
    let imageRGBToYUV: @convention(c) (Image?, UnsafePointer<avifRGBImage>?) -> avifResult
    let imageCreate: @convention(c) (UInt32, UInt32, UInt32, avifPixelFormat) -> Image?
    let imageDestroy: @convention(c) (Image?) -> Void

    let encoderCreate: @convention(c) () -> Encoder?
    let encoderDestroy: @convention(c) (Encoder?) -> Void
    let encoderAddImage: @convention(c) (Encoder?, UnsafePointer<avifImage>?, UInt64, avifAddImageFlags) -> avifResult
    let encoderFinish: @convention(c) (Encoder?, UnsafeMutablePointer<avifRWData>?) -> avifResult
    let rwDataFree: @convention(c) (UnsafeMutablePointer<avifRWData>?) -> Void

    /// The table, or why libavif or one of its functions could not be loaded; opened on first use.
    static let shared: Result<AVIFLibrary, DynamicLibraryError> = Result { () throws(DynamicLibraryError) in try AVIFLibrary() }

    private init() throws(DynamicLibraryError) {
        let lib = try DynamicLibrary(opening: ["libavif.so.15"])
        resultToString = try lib.function("avifResultToString", as: (@convention(c) (avifResult) -> UnsafePointer<CChar>?).self)
        decoderCreate = try lib.function("avifDecoderCreate", as: (@convention(c) () -> Decoder?).self)
        decoderDestroy = try lib.function("avifDecoderDestroy", as: (@convention(c) (Decoder?) -> Void).self)
        decoderSetIOMemory = try lib.function(
            "avifDecoderSetIOMemory", as: (@convention(c) (Decoder?, UnsafePointer<UInt8>?, Int) -> avifResult).self)
        decoderParse = try lib.function("avifDecoderParse", as: (@convention(c) (Decoder?) -> avifResult).self)
        decoderNextImage = try lib.function("avifDecoderNextImage", as: (@convention(c) (Decoder?) -> avifResult).self)
        decoderReset = try lib.function("avifDecoderReset", as: (@convention(c) (Decoder?) -> avifResult).self)
        decoderNthImageTiming = try lib.function(
            "avifDecoderNthImageTiming",
            as: (@convention(c) (UnsafePointer<avifDecoder>?, UInt32, UnsafeMutablePointer<avifImageTiming>?) -> avifResult).self)
        rgbImageSetDefaults = try lib.function(
            "avifRGBImageSetDefaults",
            as: (@convention(c) (UnsafeMutablePointer<avifRGBImage>?, UnsafePointer<avifImage>?) -> Void).self)
        imageYUVToRGB = try lib.function(
            "avifImageYUVToRGB",
            as: (@convention(c) (UnsafePointer<avifImage>?, UnsafeMutablePointer<avifRGBImage>?) -> avifResult).self)
        imageRGBToYUV = try lib.function(
            "avifImageRGBToYUV", as: (@convention(c) (Image?, UnsafePointer<avifRGBImage>?) -> avifResult).self)
        imageCreate = try lib.function(
            "avifImageCreate", as: (@convention(c) (UInt32, UInt32, UInt32, avifPixelFormat) -> Image?).self)
        imageDestroy = try lib.function("avifImageDestroy", as: (@convention(c) (Image?) -> Void).self)
        encoderCreate = try lib.function("avifEncoderCreate", as: (@convention(c) () -> Encoder?).self)
        encoderDestroy = try lib.function("avifEncoderDestroy", as: (@convention(c) (Encoder?) -> Void).self)
        encoderAddImage = try lib.function(
            "avifEncoderAddImage",
            as: (@convention(c) (Encoder?, UnsafePointer<avifImage>?, UInt64, avifAddImageFlags) -> avifResult).self)
        encoderFinish = try lib.function(
            "avifEncoderFinish", as: (@convention(c) (Encoder?, UnsafeMutablePointer<avifRWData>?) -> avifResult).self)
        rwDataFree = try lib.function("avifRWDataFree", as: (@convention(c) (UnsafeMutablePointer<avifRWData>?) -> Void).self)
    }

    /// libavif's name for `result`, such as "Truncated data".
    func describe(_ result: avifResult) -> String {
        resultToString(result).map { String(cString: $0) } ?? "libavif result \(result.rawValue)"
    }
}

extension AVIFCodec {
    /// The loaded library, or the decoding (or encoding) error saying why it could not be loaded.
    static func library(encoding: Bool = false) throws -> AVIFLibrary {
        switch AVIFLibrary.shared {
        case .success(let library): return library
        case .failure(let error): throw unavailableLibraryError(error, encoding: encoding)
        }
    }
}
