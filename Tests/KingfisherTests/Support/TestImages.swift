import Foundation
import KingfisherTestSupport
@testable import Kingfisher

/// Images the tests make themselves, so no fixture has to be trusted.
enum TestImages {
    /// A smooth photo-like gradient with some texture; alpha varies when `alpha` is true.
    static func gradientFrame(width: Int, height: Int, alpha: Bool = false, seed: Int = 0) -> ImageFrame {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let a: Int = alpha ? (x * 255 / max(1, width - 1)) : 255
                let r = (x * 255 / max(1, width - 1) + seed * 37) % 256
                let g = (y * 255 / max(1, height - 1) + seed * 11) % 256
                let b = ((x + y) * 127 / max(1, width + height - 2) + 64 + seed * 5) % 256
                pixels[offset] = UInt8((r * a + 127) / 255)
                pixels[offset + 1] = UInt8((g * a + 127) / 255)
                pixels[offset + 2] = UInt8((b * a + 127) / 255)
                pixels[offset + 3] = UInt8(a)
            }
        }
        return ImageFrame(unchecked: width, height: height, pixels: pixels)
    }

    /// A still gradient image.
    static func gradient(width: Int, height: Int, alpha: Bool = false) -> KFCrossPlatformImage {
        KFCrossPlatformImage(frame: gradientFrame(width: width, height: height, alpha: alpha))
    }

    /// An image of one colour (premultiplied components).
    static func solid(width: Int, height: Int, _ color: RGBA8) -> KFCrossPlatformImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = color.r
            pixels[index + 1] = color.g
            pixels[index + 2] = color.b
            pixels[index + 3] = color.a
        }
        return KFCrossPlatformImage(frame: ImageFrame(unchecked: width, height: height, pixels: pixels))
    }

    /// Largest difference of any channel between two frames of equal size; `Int.max` if sizes differ.
    static func maxDifference(_ a: ImageFrame, _ b: ImageFrame) -> Int {
        guard a.width == b.width, a.height == b.height else { return .max }
        var worst = 0
        for index in 0..<a.pixels.count {
            worst = max(worst, abs(Int(a.pixels[index]) - Int(b.pixels[index])))
        }
        return worst
    }

    /// Mean absolute difference per channel between two frames of equal size; `.infinity` if sizes differ.
    static func meanDifference(_ a: ImageFrame, _ b: ImageFrame) -> Double {
        guard a.width == b.width, a.height == b.height else { return .infinity }
        var total = 0
        for index in 0..<a.pixels.count {
            total += abs(Int(a.pixels[index]) - Int(b.pixels[index]))
        }
        return Double(total) / Double(a.pixels.count)
    }
}

/// Deterministic damage to valid files: every kind of truncation and many byte flips.
enum Mutations {
    /// A small, fixed-seed generator so failures reproduce.
    typealias SeededGenerator = KingfisherTestSupport.SeededGenerator

    /// `count` damaged copies of `data`: truncations at spread-out lengths, then copies with 1–8
    /// random bytes overwritten, then copies with a byte range removed or duplicated.
    static func damaged(_ data: Data, count: Int, seed: UInt64 = 42) -> [Data] {
        var generator = SeededGenerator(state: seed)
        var results: [Data] = []
        let bytes = [UInt8](data)
        let truncations = min(bytes.count, count / 3)
        for index in 0..<truncations {
            let length = bytes.count * index / max(1, truncations)
            results.append(Data(bytes[0..<length]))
        }
        while results.count < count {
            var copy = bytes
            switch Int.random(in: 0..<4, using: &generator) {
            case 0, 1:
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    copy[Int.random(in: 0..<copy.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            case 2:
                let start = Int.random(in: 0..<copy.count, using: &generator)
                let end = min(copy.count, start + Int.random(in: 1...64, using: &generator))
                copy.removeSubrange(start..<end)
            default:
                let start = Int.random(in: 0..<copy.count, using: &generator)
                let end = min(copy.count, start + Int.random(in: 1...64, using: &generator))
                copy.insert(contentsOf: copy[start..<end], at: start)
            }
            results.append(Data(copy))
        }
        return results
    }

    /// Decodes every damaged copy; returns how many failed with something other than a
    /// `KingfisherError` (which should be none) and how many decoded at all.
    static func decodeAll(_ inputs: [Data], options: ImageCreatingOptions = ImageCreatingOptions()) -> (foreignErrors: Int, decoded: Int) {
        var foreign = 0
        var decoded = 0
        for input in inputs {
            do {
                let image = try KFCrossPlatformImage(data: input, options: options)
                if image.pixelWidth > 0 { decoded += 1 }
                _ = try? ImageHeader(data: input)
            } catch is KingfisherError {
                continue
            } catch {
                foreign += 1
            }
        }
        return (foreign, decoded)
    }
}
