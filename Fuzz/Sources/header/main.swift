import Foundation
import FuzzSupport
import Kingfisher

/// The header probe (format, size, frames, loop count, durations, EXIF orientation) on any bytes,
/// checked against what a decode of the same bytes gives.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = FuzzInput.data(bytes, size)
    _ = data.kf.imageFormat
    guard let header = try? ImageHeader(data: data) else { return 0 }
    FuzzCheck.that(header.pixelWidth >= 0 && header.pixelHeight >= 0, "header size is negative")
    FuzzCheck.that(header.frameCount >= 0, "header frame count is negative")
    FuzzCheck.that(header.frameDurations.allSatisfy { $0 >= 0 }, "a negative frame duration")
    let oriented = header.orientedPixelSize
    FuzzCheck.that(
        header.orientation.swapsDimensions
            ? oriented == (header.pixelHeight, header.pixelWidth) : oriented == (header.pixelWidth, header.pixelHeight),
        "oriented size does not follow the orientation")
    let options = ImageCreatingOptions(onlyFirstFrame: true, limits: FuzzDecoding.tightLimits)
    if let image = try? KFCrossPlatformImage(data: data, options: options) {
        FuzzCheck.that(image.pixelWidth == oriented.width && image.pixelHeight == oriented.height,
                       "decoded \(image.pixelWidth)x\(image.pixelHeight), header said \(oriented)")
    }
    return 0
}

FuzzDriver.run { bytes, size in fuzz(bytes, size) }
