import Foundation
import Kingfisher

/// Runs resolved ``GeometryStep``s on an image, and works out how small a source may be decoded
/// for them.
enum GeometryExecutor {
    /// `image` after `steps`, in order.
    static func apply(_ steps: [GeometryStep], to image: KFCrossPlatformImage) -> KFCrossPlatformImage {
        var image = image
        for step in steps {
            switch step {
            case .crop(let x, let y, let width, let height):
                guard x != 0 || y != 0 || width != image.pixelWidth || height != image.pixelHeight else { continue }
                image = image.cropped(toPixelRect: CGRect(x: x, y: y, width: width, height: height))
            case .smartCrop(let width, let height):
                guard width < image.pixelWidth || height < image.pixelHeight else { continue }
                image = image.cropped(toPixelRect: image.smartCropRect(width: width, height: height))
            case .scale(let width, let height):
                guard width != image.pixelWidth || height != image.pixelHeight else { continue }
                image = image.resampled(toPixelWidth: max(width, 1), height: max(height, 1))
            case .flip(let horizontal, let vertical):
                guard horizontal || vertical else { continue }
                image = image.flipped(horizontal: horizontal, vertical: vertical)
            case .rotate(let quarterTurns):
                guard quarterTurns % 4 != 0 else { continue }
                image = image.rotated(quarterTurns: quarterTurns)
            case .extend(let width, let height, let x, let y, let background):
                image = image.extended(toPixelWidth: width, height: height, x: x, y: y, background: background.platformColor)
            case .fill(let width, let height, let x, let y, let fill, let blends):
                image = Self.filled(image, width: width, height: height, x: x, y: y, fill: fill, blends: blends)
            }
        }
        return image
    }

    /// The factor (below 1 when the source may be decoded reduced) by which the first resample in
    /// `steps` shrinks the region the crops before it keep of a `width`×`height` source; `nil`
    /// when another step comes first or nothing is resampled.
    static func reduction(of steps: [GeometryStep], width: Int, height: Int) -> Double? {
        var regionWidth = width
        var regionHeight = height
        for step in steps {
            switch step {
            case .crop(_, _, let cropWidth, let cropHeight), .smartCrop(let cropWidth, let cropHeight):
                regionWidth = max(1, min(regionWidth, cropWidth))
                regionHeight = max(1, min(regionHeight, cropHeight))
            case .scale(let targetWidth, let targetHeight):
                return max(Double(targetWidth) / Double(regionWidth), Double(targetHeight) / Double(regionHeight))
            case .flip, .rotate, .extend, .fill:
                return nil
            }
        }
        return nil
    }

    /// `steps` for a source decoded at `x`×`y` of its size: the crops before the first resample
    /// are scaled to the decoded pixels; the resample's target and everything after it are kept.
    static func rescaling(_ steps: [GeometryStep], x: Double, y: Double) -> [GeometryStep] {
        var result: [GeometryStep] = []
        var reachedScale = false
        for step in steps {
            guard !reachedScale else {
                result.append(step)
                continue
            }
            switch step {
            case .crop(let left, let top, let width, let height):
                let scaledLeft = Int((Double(left) * x).rounded())
                let scaledTop = Int((Double(top) * y).rounded())
                let right = Int((Double(left + width) * x).rounded())
                let bottom = Int((Double(top + height) * y).rounded())
                result.append(.crop(x: scaledLeft, y: scaledTop, width: max(1, right - scaledLeft),
                                    height: max(1, bottom - scaledTop)))
            case .smartCrop(let width, let height):
                result.append(.smartCrop(width: max(1, Int((Double(width) * x).rounded())),
                                         height: max(1, Int((Double(height) * y).rounded()))))
            case .scale:
                reachedScale = true
                result.append(step)
            case .flip, .rotate, .extend, .fill:
                reachedScale = true
                result.append(step)
            }
        }
        return result
    }
}

extension GeometryExecutor {
    /// `image` placed at (`x`, `y`) on a `width`×`height` canvas painted by `fill`.
    static func filled(_ image: KFCrossPlatformImage, width: Int, height: Int, x: Int, y: Int, fill: RenditionFill,
                       blends: Bool) -> KFCrossPlatformImage {
        switch fill {
        case .color(let color):
            return image.extended(toPixelWidth: width, height: height, x: x, y: y, background: color.platformColor,
                                  blendsOntoBackground: blends)
        case .average:
            return image.extended(toPixelWidth: width, height: height, x: x, y: y,
                                  background: averageColor(of: image).platformColor, blendsOntoBackground: blends)
        case .blurred(let sigma):
            let still = image.firstFrameOnly()
            let canvas = (sigma > 0 ? still.kf.blurred(withRadius: CGFloat(sigma)) : still)
                .resampled(toPixelWidth: max(width, 1), height: max(height, 1))
            return image.placed(on: canvas, x: x, y: y, blends: blends)
        }
    }

    /// The mean of the straight colour channels of every pixel of the first frame (a transparent
    /// pixel counts as black), each rounded down, opaque.
    static func averageColor(of image: KFCrossPlatformImage) -> RenditionColor {
        let frame = image.firstFrame
        var sums = [Int](repeating: 0, count: 3)
        frame.pixels.withUnsafeBufferPointer { pixels in
            var offset = 0
            while offset + 3 < pixels.count {
                let alpha = Int(pixels[offset + 3])
                if alpha == 255 {
                    for channel in 0..<3 { sums[channel] += Int(pixels[offset + channel]) }
                } else if alpha > 0 {
                    for channel in 0..<3 { sums[channel] += min(255, (Int(pixels[offset + channel]) * 255 + alpha / 2) / alpha) }
                }
                offset += 4
            }
        }
        let count = max(1, frame.width * frame.height)
        return RenditionColor(red: UInt8(sums[0] / count), green: UInt8(sums[1] / count), blue: UInt8(sums[2] / count))
    }
}

extension RenditionColor {
    /// The same colour as the library's colour type.
    var platformColor: KFCrossPlatformColor {
        KFCrossPlatformColor(red: CGFloat(red) / 255, green: CGFloat(green) / 255, blue: CGFloat(blue) / 255,
                             alpha: CGFloat(alpha) / 255)
    }
}
