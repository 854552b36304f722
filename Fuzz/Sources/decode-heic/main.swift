import Foundation
import FuzzSupport
import Kingfisher

/// The header probe and `KFCrossPlatformImage(data:)` on HEIC (HEIF with HEVC) input (other formats are
/// skipped), eagerly and lazily, under tight limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = FuzzInput.data(bytes, size)
    guard data.kf.imageFormat == .HEIC else { return 0 }
    FuzzDecoding.exercise(data)
    return 0
}

FuzzDriver.run { bytes, size in fuzz(bytes, size) }
