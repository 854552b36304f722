import Foundation
import FuzzSupport
import Kingfisher

/// `DownsamplingImageProcessor` on `.data` (decode-time scaling, then the resample) with a target
/// size and scale taken from the first three bytes, under tight limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput.data(bytes, size)
    guard input.count >= 3 else { return 0 }
    let width = CGFloat(input[input.startIndex])
    let height = CGFloat(input[input.startIndex + 1])
    let scale = CGFloat(input[input.startIndex + 2] % 4 + 1)
    let data = Data(input.dropFirst(3))
    let processor = DownsamplingImageProcessor(size: CGSize(width: width, height: height))
    let options = KingfisherParsedOptionsInfo([
        .scaleFactor(scale), .decodingLimits(FuzzDecoding.tightLimits),
    ])
    guard let image = processor.process(item: .data(data), options: options) else { return 0 }
    let longest = max(width, height) * scale
    FuzzCheck.that(longest > 0, "a zero size gave an image")
    FuzzCheck.that(CGFloat(max(image.pixelWidth, image.pixelHeight)) <= longest.rounded(.up) + 1,
                   "downsampled to \(image.pixelWidth)x\(image.pixelHeight) for a \(longest) px bound")
    return 0
}

FuzzDriver.run { bytes, size in fuzz(bytes, size) }
