import Foundation
import Kingfisher

/// Small seed files for the corpora, made with the library's own encoders so that no image tool
/// is needed: stills and animations in every format, alpha and opaque, a progressive JPEG and JPEGs
/// carrying each EXIF orientation.
enum SeedWriter {
    /// Writes `<format>-<name>` files into `folder`.
    static func write(into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var seeds: [String: Data] = [:]
        let opaque = image(width: 8, height: 8, frames: 1, alpha: false)
        let alpha = image(width: 5, height: 3, frames: 1, alpha: true)
        let animation = image(width: 6, height: 4, frames: 3, alpha: true)
        let odd = image(width: 17, height: 9, frames: 1, alpha: false)
        seeds["png-opaque"] = try opaque.encoded(as: .PNG)
        seeds["png-alpha"] = try alpha.encoded(as: .PNG)
        seeds["jpeg-opaque"] = try opaque.encoded(as: .JPEG)
        let progressive = try odd.encoded(as: .JPEG, options: ImageEncodingOptions(compressionQuality: 0.5, progressive: true))
        seeds["jpeg-progressive"] = progressive
        for orientation in [3, 6, 8] {
            seeds["jpeg-exif\(orientation)"] = withEXIFOrientation(progressive, orientation: UInt8(orientation))
        }
        seeds["gif-still"] = try alpha.encoded(as: .GIF)
        seeds["gif-animated"] = try animation.encoded(as: .GIF)
        seeds["webp-lossy"] = try opaque.encoded(as: .WebP)
        seeds["webp-lossless"] = try alpha.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        seeds["webp-animated"] = try animation.encoded(as: .WebP, options: ImageEncodingOptions(lossless: true))
        for (name, data) in seeds {
            try data.write(to: folder.appendingPathComponent(name))
        }
    }

    /// A gradient image; each frame shifted so frames differ.
    static func image(width: Int, height: Int, frames: Int, alpha: Bool) -> KFCrossPlatformImage {
        let made = (0..<frames).compactMap { index -> ImageFrame? in
            var pixels = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let base = (y * width + x) * 4
                    let a: UInt8 = alpha ? UInt8((x * 255) / max(1, width - 1)) : 255
                    pixels[base] = UInt8(truncatingIfNeeded: Int(a) * ((x * 40 + index * 60) % 256) / 255)
                    pixels[base + 1] = UInt8(truncatingIfNeeded: Int(a) * ((y * 50) % 256) / 255)
                    pixels[base + 2] = UInt8(truncatingIfNeeded: Int(a) * (index * 80 % 256) / 255)
                    pixels[base + 3] = a
                }
            }
            return ImageFrame(width: width, height: height, pixels: pixels, duration: 0.05 * Double(index + 1))
        }
        return KFCrossPlatformImage(frames: made, loopCount: 2) ?? KFCrossPlatformImage(frame: made[0])
    }

    /// `jpeg` with an APP1 EXIF segment (big-endian TIFF, one IFD entry: Orientation) after SOI.
    static func withEXIFOrientation(_ jpeg: Data, orientation: UInt8) -> Data {
        let tiff: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, // "MM", 42, IFD at 8
            0x00, 0x01, // one entry
            0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, orientation, 0x00, 0x00, // Orientation, SHORT
            0x00, 0x00, 0x00, 0x00, // no next IFD
        ]
        let body: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: segment)
        out.append(jpeg.dropFirst(2))
        return out
    }
}

/// libFuzzer calls this once before fuzzing. With `KF_FUZZ_WRITE_SEEDS` set to a folder, the
/// binary only writes the generated seeds there and exits (how `scripts/fuzz.sh` seeds corpora).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    guard let folder = ProcessInfo.processInfo.environment["KF_FUZZ_WRITE_SEEDS"], !folder.isEmpty else { return 0 }
    do {
        try SeedWriter.write(into: URL(fileURLWithPath: folder, isDirectory: true))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("fuzz: cannot write seeds: \(error)\n".utf8))
        exit(1)
    }
}
