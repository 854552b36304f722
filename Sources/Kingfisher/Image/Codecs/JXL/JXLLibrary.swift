import CLibJXL
import Foundation

/// The libjxl decoder and encoder functions Kingfisher calls, looked up once in `libjxl.so.0.7`
/// (Debian's 0.7.0).
///
/// Each type below is the C declaration in `<jxl/decode.h>` or `<jxl/encode.h>` spelled as a Swift
/// function pointer: `JxlDecoder*`, `JxlEncoder*` and `JxlEncoderFrameSettings*` are opaque,
/// `JXL_BOOL` is `int`, `size_t` is `Int`.
struct JXLLibrary: Sendable {
    typealias Decoder = OpaquePointer
    typealias Encoder = OpaquePointer
    typealias FrameSettings = OpaquePointer
    typealias Status = JxlDecoderStatus
    typealias EncoderStatus = JxlEncoderStatus

    let decoderCreate: @convention(c) (UnsafePointer<JxlMemoryManager>?) -> Decoder?
    let decoderDestroy: @convention(c) (Decoder?) -> Void
    let decoderRewind: @convention(c) (Decoder?) -> Void
    let decoderSkipFrames: @convention(c) (Decoder?, Int) -> Void
    let decoderSetParallelRunner: @convention(c) (Decoder?, JxlParallelRunner?, UnsafeMutableRawPointer?) -> Status
    let decoderSubscribeEvents: @convention(c) (Decoder?, Int32) -> Status
    let decoderSetKeepOrientation: @convention(c) (Decoder?, Int32) -> Status
    let decoderSetUnpremultiplyAlpha: @convention(c) (Decoder?, Int32) -> Status
    let decoderProcessInput: @convention(c) (Decoder?) -> Status
    let decoderSetInput: @convention(c) (Decoder?, UnsafePointer<UInt8>?, Int) -> Status
    let decoderCloseInput: @convention(c) (Decoder?) -> Void
    let decoderGetBasicInfo: @convention(c) (Decoder?, UnsafeMutablePointer<JxlBasicInfo>?) -> Status
    let decoderGetColorAsEncodedProfile: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                                         UnsafeMutablePointer<JxlColorEncoding>?) -> Status
    let decoderGetICCProfileSize: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                                  UnsafeMutablePointer<Int>?) -> Status
    let decoderGetColorAsICCProfile: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                                     UnsafeMutablePointer<UInt8>?, Int) -> Status
    let decoderSetPreferredColorProfile: @convention(c) (Decoder?, UnsafePointer<JxlColorEncoding>?) -> Status
    let decoderGetFrameHeader: @convention(c) (Decoder?, UnsafeMutablePointer<JxlFrameHeader>?) -> Status
    let decoderImageOutBufferSize: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutablePointer<Int>?) -> Status
    let decoderSetImageOutBuffer: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutableRawPointer?, Int) -> Status
    let colorEncodingSetToSRGB: @convention(c) (UnsafeMutablePointer<JxlColorEncoding>?, Int32) -> Void
    let decoderGetExtraChannelInfo: @convention(c) (Decoder?, Int, UnsafeMutablePointer<JxlExtraChannelInfo>?) -> Status
    let decoderExtraChannelBufferSize: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutablePointer<Int>?,
                                                       UInt32) -> Status
    let decoderSetExtraChannelBuffer: @convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutableRawPointer?,
                                                      Int, UInt32) -> Status

    let encoderCreate: @convention(c) (UnsafePointer<JxlMemoryManager>?) -> Encoder?
    let encoderDestroy: @convention(c) (Encoder?) -> Void
    let encoderSetParallelRunner: @convention(c) (Encoder?, JxlParallelRunner?, UnsafeMutableRawPointer?) -> EncoderStatus
    let encoderGetError: @convention(c) (Encoder?) -> JxlEncoderError
    let encoderProcessOutput: @convention(c) (Encoder?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                              UnsafeMutablePointer<Int>?) -> EncoderStatus
    let encoderSetFrameHeader: @convention(c) (FrameSettings?, UnsafePointer<JxlFrameHeader>?) -> EncoderStatus
    let encoderAddImageFrame: @convention(c) (FrameSettings?, UnsafePointer<JxlPixelFormat>?, UnsafeRawPointer?, Int) -> EncoderStatus
    let encoderCloseInput: @convention(c) (Encoder?) -> Void
    let encoderSetColorEncoding: @convention(c) (Encoder?, UnsafePointer<JxlColorEncoding>?) -> EncoderStatus
    let encoderInitBasicInfo: @convention(c) (UnsafeMutablePointer<JxlBasicInfo>?) -> Void
    let encoderInitFrameHeader: @convention(c) (UnsafeMutablePointer<JxlFrameHeader>?) -> Void
    let encoderSetBasicInfo: @convention(c) (Encoder?, UnsafePointer<JxlBasicInfo>?) -> EncoderStatus
    let encoderFrameSettingsSetOption: @convention(c) (FrameSettings?, JxlEncoderFrameSettingId, Int64) -> EncoderStatus
    let encoderSetFrameLossless: @convention(c) (FrameSettings?, Int32) -> EncoderStatus
    let encoderSetFrameDistance: @convention(c) (FrameSettings?, Float) -> EncoderStatus
    let encoderFrameSettingsCreate: @convention(c) (Encoder?, FrameSettings?) -> FrameSettings?

    /// The library, opened and bound on first use; the failure is kept and reported on every use.
    static let shared: Result<JXLLibrary, DynamicLibraryError> = Result { () throws(DynamicLibraryError) in try JXLLibrary() }

    private init() throws(DynamicLibraryError) {
        let lib = try DynamicLibrary(opening: ["libjxl.so.0.7"])
        decoderCreate = try lib.function("JxlDecoderCreate",
            as: (@convention(c) (UnsafePointer<JxlMemoryManager>?) -> Decoder?).self)
        decoderDestroy = try lib.function("JxlDecoderDestroy", as: (@convention(c) (Decoder?) -> Void).self)
        decoderRewind = try lib.function("JxlDecoderRewind", as: (@convention(c) (Decoder?) -> Void).self)
        decoderSkipFrames = try lib.function("JxlDecoderSkipFrames", as: (@convention(c) (Decoder?, Int) -> Void).self)
        decoderSetParallelRunner = try lib.function("JxlDecoderSetParallelRunner",
            as: (@convention(c) (Decoder?, JxlParallelRunner?, UnsafeMutableRawPointer?) -> Status).self)
        decoderSubscribeEvents = try lib.function("JxlDecoderSubscribeEvents",
            as: (@convention(c) (Decoder?, Int32) -> Status).self)
        decoderSetKeepOrientation = try lib.function("JxlDecoderSetKeepOrientation",
            as: (@convention(c) (Decoder?, Int32) -> Status).self)
        decoderSetUnpremultiplyAlpha = try lib.function("JxlDecoderSetUnpremultiplyAlpha",
            as: (@convention(c) (Decoder?, Int32) -> Status).self)
        decoderProcessInput = try lib.function("JxlDecoderProcessInput", as: (@convention(c) (Decoder?) -> Status).self)
        decoderSetInput = try lib.function("JxlDecoderSetInput",
            as: (@convention(c) (Decoder?, UnsafePointer<UInt8>?, Int) -> Status).self)
        decoderCloseInput = try lib.function("JxlDecoderCloseInput", as: (@convention(c) (Decoder?) -> Void).self)
        decoderGetBasicInfo = try lib.function("JxlDecoderGetBasicInfo",
            as: (@convention(c) (Decoder?, UnsafeMutablePointer<JxlBasicInfo>?) -> Status).self)
        decoderGetColorAsEncodedProfile = try lib.function("JxlDecoderGetColorAsEncodedProfile",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                 UnsafeMutablePointer<JxlColorEncoding>?) -> Status).self)
        decoderGetICCProfileSize = try lib.function("JxlDecoderGetICCProfileSize",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                 UnsafeMutablePointer<Int>?) -> Status).self)
        decoderGetColorAsICCProfile = try lib.function("JxlDecoderGetColorAsICCProfile",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, JxlColorProfileTarget,
                                 UnsafeMutablePointer<UInt8>?, Int) -> Status).self)
        decoderSetPreferredColorProfile = try lib.function("JxlDecoderSetPreferredColorProfile",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlColorEncoding>?) -> Status).self)
        decoderGetFrameHeader = try lib.function("JxlDecoderGetFrameHeader",
            as: (@convention(c) (Decoder?, UnsafeMutablePointer<JxlFrameHeader>?) -> Status).self)
        decoderImageOutBufferSize = try lib.function("JxlDecoderImageOutBufferSize",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutablePointer<Int>?) -> Status).self)
        decoderSetImageOutBuffer = try lib.function("JxlDecoderSetImageOutBuffer",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutableRawPointer?, Int) -> Status).self)
        decoderGetExtraChannelInfo = try lib.function("JxlDecoderGetExtraChannelInfo",
            as: (@convention(c) (Decoder?, Int, UnsafeMutablePointer<JxlExtraChannelInfo>?) -> Status).self)
        decoderExtraChannelBufferSize = try lib.function("JxlDecoderExtraChannelBufferSize",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutablePointer<Int>?, UInt32) -> Status).self)
        decoderSetExtraChannelBuffer = try lib.function("JxlDecoderSetExtraChannelBuffer",
            as: (@convention(c) (Decoder?, UnsafePointer<JxlPixelFormat>?, UnsafeMutableRawPointer?, Int, UInt32) -> Status).self)
        colorEncodingSetToSRGB = try lib.function("JxlColorEncodingSetToSRGB",
            as: (@convention(c) (UnsafeMutablePointer<JxlColorEncoding>?, Int32) -> Void).self)

        encoderCreate = try lib.function("JxlEncoderCreate",
            as: (@convention(c) (UnsafePointer<JxlMemoryManager>?) -> Encoder?).self)
        encoderDestroy = try lib.function("JxlEncoderDestroy", as: (@convention(c) (Encoder?) -> Void).self)
        encoderSetParallelRunner = try lib.function("JxlEncoderSetParallelRunner",
            as: (@convention(c) (Encoder?, JxlParallelRunner?, UnsafeMutableRawPointer?) -> EncoderStatus).self)
        encoderGetError = try lib.function("JxlEncoderGetError", as: (@convention(c) (Encoder?) -> JxlEncoderError).self)
        encoderProcessOutput = try lib.function("JxlEncoderProcessOutput",
            as: (@convention(c) (Encoder?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                 UnsafeMutablePointer<Int>?) -> EncoderStatus).self)
        encoderSetFrameHeader = try lib.function("JxlEncoderSetFrameHeader",
            as: (@convention(c) (FrameSettings?, UnsafePointer<JxlFrameHeader>?) -> EncoderStatus).self)
        encoderAddImageFrame = try lib.function("JxlEncoderAddImageFrame",
            as: (@convention(c) (FrameSettings?, UnsafePointer<JxlPixelFormat>?, UnsafeRawPointer?, Int) -> EncoderStatus).self)
        encoderCloseInput = try lib.function("JxlEncoderCloseInput", as: (@convention(c) (Encoder?) -> Void).self)
        encoderSetColorEncoding = try lib.function("JxlEncoderSetColorEncoding",
            as: (@convention(c) (Encoder?, UnsafePointer<JxlColorEncoding>?) -> EncoderStatus).self)
        encoderInitBasicInfo = try lib.function("JxlEncoderInitBasicInfo",
            as: (@convention(c) (UnsafeMutablePointer<JxlBasicInfo>?) -> Void).self)
        encoderInitFrameHeader = try lib.function("JxlEncoderInitFrameHeader",
            as: (@convention(c) (UnsafeMutablePointer<JxlFrameHeader>?) -> Void).self)
        encoderSetBasicInfo = try lib.function("JxlEncoderSetBasicInfo",
            as: (@convention(c) (Encoder?, UnsafePointer<JxlBasicInfo>?) -> EncoderStatus).self)
        encoderFrameSettingsSetOption = try lib.function("JxlEncoderFrameSettingsSetOption",
            as: (@convention(c) (FrameSettings?, JxlEncoderFrameSettingId, Int64) -> EncoderStatus).self)
        encoderSetFrameLossless = try lib.function("JxlEncoderSetFrameLossless",
            as: (@convention(c) (FrameSettings?, Int32) -> EncoderStatus).self)
        encoderSetFrameDistance = try lib.function("JxlEncoderSetFrameDistance",
            as: (@convention(c) (FrameSettings?, Float) -> EncoderStatus).self)
        encoderFrameSettingsCreate = try lib.function("JxlEncoderFrameSettingsCreate",
            as: (@convention(c) (Encoder?, FrameSettings?) -> FrameSettings?).self)
    }
}

/// libjxl_threads' thread-pool runner (`libjxl_threads.so.0.7`), which `djxl` and `cjxl` use by
/// default with one worker per hardware thread.
///
/// Optional: when it cannot be loaded, decoding and encoding run on the calling thread.
struct JXLThreads: Sendable {
    let runner: JxlParallelRunner
    let create: @convention(c) (UnsafePointer<JxlMemoryManager>?, Int) -> UnsafeMutableRawPointer?
    let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let defaultWorkerCount: @convention(c) () -> Int

    /// The runner's functions, or `nil` when the library is missing.
    static let shared: JXLThreads? = try? JXLThreads()

    private init() throws(DynamicLibraryError) {
        let lib = try DynamicLibrary(opening: ["libjxl_threads.so.0.7"])
        runner = try lib.function("JxlThreadParallelRunner", as: JxlParallelRunner.self)
        create = try lib.function("JxlThreadParallelRunnerCreate",
            as: (@convention(c) (UnsafePointer<JxlMemoryManager>?, Int) -> UnsafeMutableRawPointer?).self)
        destroy = try lib.function("JxlThreadParallelRunnerDestroy",
                                   as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        defaultWorkerCount = try lib.function("JxlThreadParallelRunnerDefaultNumWorkerThreads",
                                              as: (@convention(c) () -> Int).self)
    }
}
