import Foundation
import FuzzSupport
import Kingfisher

/// Any format under limits the fuzzer chooses (the first three bytes), down to a single pixel or
/// frame: the checks made from the header before any pixel memory is taken, and the errors after.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput.data(bytes, size)
    guard input.count >= 3 else { return 0 }
    let pixels = 1 << Int(input[input.startIndex] % 21)
    let frames = Int(input[input.startIndex + 1] % 16)
    let total = 1 << Int(input[input.startIndex + 2] % 23)
    let limits = ImageDecodingLimits(maxPixelsPerFrame: pixels, maxFrameCount: frames, maxTotalAnimationPixels: total)
    let data = input.dropFirst(3)
    FuzzDecoding.exercise(Data(data), limits: limits)
    FuzzDecoding.exerciseFirstFrame(Data(data), limits: limits)
    return 0
}

FuzzDriver.run { bytes, size in fuzz(bytes, size) }
