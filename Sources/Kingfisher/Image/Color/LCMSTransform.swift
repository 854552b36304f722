import Dispatch
import Foundation

/// An lcms2 transform from an embedded ICC profile to sRGB, deleted when the last user lets go.
///
/// Immutable after creation; lcms2 allows one transform to run on several threads at once.
final class LCMSTransform: Sendable {
    /// Which pixel layout the transform reads.
    enum Input: Sendable {
        /// RGBA8 (alpha left alone).
        case rgba
        /// CMYK8, 0 meaning no ink.
        case cmyk
        /// CMYK8 inverted, 255 meaning no ink (Adobe's JPEGs).
        case cmykInverted

        var format: UInt32 {
            switch self {
            case .rgba: LCMSLibrary.rgba8
            case .cmyk: LCMSLibrary.cmyk8
            case .cmykInverted: LCMSLibrary.cmyk8Reversed
            }
        }
    }

    private let library: LCMSLibrary
    /// The `cmsHTRANSFORM`, as an address.
    private let handle: UInt

    /// The transform from the ICC profile `data` read as `input`, relative colorimetric, to sRGB
    /// RGBA8; `nil` when lcms2 cannot be loaded, rejects the profile, or the profile does not
    /// describe `input`'s colour space.
    init?(profile data: Data, input: Input) {
        guard case .success(let library) = LCMSLibrary.shared,
              let size = UInt32(exactly: data.count) else { return nil }
        let source = data.withUnsafeBytes { library.openProfileFromMem($0.baseAddress, size) }
        guard let source else { return nil }
        defer { _ = library.closeProfile(source) }
        guard let target = library.createSRGBProfile() else { return nil }
        defer { _ = library.closeProfile(target) }
        guard let transform = library.createTransform(source, input.format, target, LCMSLibrary.rgba8,
                                                      LCMSLibrary.relativeColorimetric, 0) else { return nil }
        self.library = library
        self.handle = UInt(bitPattern: transform)
    }

    /// `cmsDoTransform` over `count` pixels from `address`, a million at a time (its count is 32-bit).
    private func run(_ address: UInt, count: Int) {
        let transform = UnsafeMutableRawPointer(bitPattern: handle)
        var done = 0
        while done < count {
            let chunk = min(count - done, 1 << 20)
            let pointer = UnsafeMutableRawPointer(bitPattern: address + UInt(done * 4))
            library.doTransform(transform, pointer, pointer, UInt32(chunk))
            done += chunk
        }
    }

    deinit {
        library.deleteTransform(UnsafeMutableRawPointer(bitPattern: handle))
    }

    /// Transforms `pixelCount` 4-byte pixels in place to RGBA, on two threads for large images unless
    /// `threads` is 1. The alpha of RGBA input is kept; CMYK input comes out opaque.
    func apply(_ pixels: UnsafeMutableRawBufferPointer, pixelCount: Int, input: Input, threads: Int = 2) {
        guard let base = pixels.baseAddress, pixels.count >= pixelCount * 4 else { return }
        // The address crosses into the worker as an integer: each half writes only its own pixels.
        let address = UInt(bitPattern: base)
        if threads > 1, pixelCount >= MatrixShaperTransform.parallelPixelCount {
            let half = pixelCount / 2
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                part == 0 ? run(address, count: half) : run(address + UInt(half * 4), count: pixelCount - half)
            }
        } else {
            run(address, count: pixelCount)
        }
        if input != .rgba {
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            for index in 0..<pixelCount {
                bytes[index * 4 + 3] = 255
            }
        }
    }
}
