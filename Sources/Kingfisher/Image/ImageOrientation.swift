import Foundation

/// The EXIF orientation tag: how stored pixels must be turned to show the picture upright.
///
/// Raw values are the tag's 1...8. Decoders apply it, so decoded images are always upright.
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: mirrored along the main diagonal (transposed).
    case leftMirrored = 5
    /// 6: must turn 90° clockwise to show upright.
    case right = 6
    /// 7: mirrored along the other diagonal (transversed).
    case rightMirrored = 7
    /// 8: must turn 90° counter-clockwise to show upright.
    case left = 8

    /// True for the orientations that exchange width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// The pixels of `frame` turned upright.
    func apply(to frame: ImageFrame) -> ImageFrame {
        if self == .up { return frame }
        let width = frame.width
        let height = frame.height
        let outWidth = swapsDimensions ? height : width
        let outHeight = swapsDimensions ? width : height
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            guard let target = UnsafeMutableRawPointer(out.baseAddress) else { return }
            frame.pixels.withUnsafeBytes { source in
                for y in 0..<height {
                    for x in 0..<width {
                        let (ox, oy) = destination(x: x, y: y, width: width, height: height)
                        let value = source.load(fromByteOffset: (y &* width &+ x) &* 4, as: UInt32.self)
                        target.storeBytes(of: value, toByteOffset: (oy &* outWidth &+ ox) &* 4, as: UInt32.self)
                    }
                }
            }
            initialized = out.count
        }
        return ImageFrame(unchecked: outWidth, height: outHeight, pixels: pixels, duration: frame.duration)
    }

    /// Where the stored pixel (`x`, `y`) lands in the upright image.
    private func destination(x: Int, y: Int, width: Int, height: Int) -> (Int, Int) {
        switch self {
        case .up: return (x, y)
        case .upMirrored: return (width &- 1 &- x, y)
        case .down: return (width &- 1 &- x, height &- 1 &- y)
        case .downMirrored: return (x, height &- 1 &- y)
        case .leftMirrored: return (y, x)
        case .right: return (height &- 1 &- y, x)
        case .rightMirrored: return (height &- 1 &- y, width &- 1 &- x)
        case .left: return (y, width &- 1 &- x)
        }
    }
}
