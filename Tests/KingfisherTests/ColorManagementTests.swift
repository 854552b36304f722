import Foundation
import Testing
@testable import Kingfisher

/// One fixture's patches (8×8 each, in a row) from `Fixtures/color/expected.json`, which
/// `make-fixtures.py` wrote with Pillow: `source` is what Pillow decodes, `srgb` what lcms2 (through
/// Pillow's ImageCms, relative colorimetric) makes of it, straight alpha.
private struct Expected: Decodable {
    let source: [[Int]]
    let srgb: [[Int]]
}

private func expected(_ name: String) throws -> Expected {
    let all = try JSONDecoder().decode([String: Expected].self, from: Fixtures.data("color/expected.json"))
    return try #require(all[name])
}

private func decode(_ name: String, keepsSourceColors: Bool = false) throws -> ImageFrame {
    let data = try Fixtures.data("color/\(name)")
    let options = ImageCreatingOptions(keepsSourceColors: keepsSourceColors)
    if name.hasSuffix(".png") { return try PNGCodec.decode(data, options: options).firstFrame }
    if name.hasSuffix(".webp") { return try WebPCodec.decode(data, options: options).firstFrame }
    return try JPEGCodec.decode(data, options: options).firstFrame
}

/// The premultiplied centre pixel of patch `index`.
private func patch(_ frame: ImageFrame, _ index: Int) -> [Int] {
    guard let p = frame.pixel(x: index * 8 + 4, y: 4) else { return [] }
    return [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
}

/// Straight RGB(A) from the JSON, premultiplied as the decoder stores it.
private func premultiplied(_ value: [Int]) -> [Int] {
    let alpha = value.count > 3 ? value[3] : 255
    return value.prefix(3).map { Int((Double($0) * Double(alpha) / 255).rounded()) } + [alpha]
}

private func within(_ a: [Int], _ b: [Int], _ tolerance: Int) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
}

/// Every patch of `name` against its expected sRGB values. Tolerance 2: Pillow's libjpeg-turbo and
/// Debian's may differ by 1 on a pixel, and the Swift matrix/TRC path is within 1 of lcms2.
private func expectConverted(_ name: String, tolerance: Int = 2) throws {
    let frame = try decode(name)
    let reference = try expected(name)
    for (index, value) in reference.srgb.enumerated() {
        let actual = patch(frame, index)
        #expect(within(actual, premultiplied(value), tolerance), "\(name) patch \(index): \(actual) against \(premultiplied(value))")
    }
}

/// 4,096 RGBA pixels spread over the cube, alpha 255.
private func cubeSamples() -> [UInt8] {
    var pixels: [UInt8] = []
    for r in stride(from: 0, through: 255, by: 17) {
        for g in stride(from: 0, through: 255, by: 17) {
            for b in stride(from: 0, through: 255, by: 15) {
                pixels += [UInt8(r), UInt8(g), UInt8(b), 255]
            }
        }
    }
    return pixels
}

/// `count` RGBA pixels of varied colours and alphas, the same on every run.
private func scatteredPixels(count: Int) -> [UInt8] {
    var state: UInt32 = 0x2545_F491
    return (0..<(count * 4)).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}

/// The matrix/TRC conversion written out plainly: linear values from `input`, the 2^14 matrix,
/// rounding, an arithmetic shift, a clamp and the sRGB encoding table; alpha kept.
private func plainConversion(_ pixels: [UInt8], input: [UInt16], matrix: [Int32]) -> [UInt8] {
    var result = pixels
    for start in stride(from: 0, to: pixels.count, by: 4) {
        let linear = (0..<3).map { Int(input[$0 * 256 + Int(pixels[start + $0])]) }
        for row in 0..<3 {
            let sum = (0..<3).reduce(8192) { $0 + Int(matrix[row * 3 + $1]) * linear[$1] }
            result[start + row] = MatrixShaperTransform.encode[min(max(sum >> 14, 0), 16_383)]
        }
    }
    return result
}

private let lcmsAvailable: Bool = {
    if case .success = LCMSLibrary.shared { return true }
    return false
}()

@Suite struct ColorManagementTests {
    @Test func displayP3JPEGWithAProfileInTwoChunksIsConverted() throws {
        try expectConverted("p3.jpg")
        // Not the stored values: the orange patch moves by more than 10.
        #expect(patch(try decode("p3.jpg"), 3)[0] - patch(try decode("p3.jpg", keepsSourceColors: true), 3)[0] > 10)
    }

    /// A photo of a million pixels or more converts its rows on a second thread while libjpeg decodes
    /// the next ones; the result must equal converting the whole decoded image at once.
    @Test func largeJPEGConvertedAlongsideDecodingMatchesConvertingAfter() throws {
        let width = 1_200, height = 1_000
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for index in 0..<(width * height) {
            pixels[index * 4] = UInt8(truncatingIfNeeded: index % width)
            pixels[index * 4 + 1] = UInt8(truncatingIfNeeded: index / width)
            pixels[index * 4 + 2] = UInt8(truncatingIfNeeded: (index * 7) >> 8)
        }
        let frame = try #require(ImageFrame(width: width, height: height, pixels: pixels))
        let plain = try JPEGCodec.encode(KFCrossPlatformImage(frame: frame), options: ImageEncodingOptions())
        let profile = try Fixtures.data("color/p3.icc")
        let payload = Data("ICC_PROFILE".utf8) + [0, 1, 1] + profile
        let segment = Data([0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]) + payload
        let tagged = plain.prefix(2) + segment + plain.dropFirst(2)

        let converted = try JPEGCodec.decode(tagged, options: ImageCreatingOptions()).firstFrame
        var reference = try JPEGCodec.decode(tagged, options: ImageCreatingOptions(keepsSourceColors: true)).firstFrame.pixels
        #expect(converted.pixels != reference)
        try reference.withUnsafeMutableBytes {
            try ColorManagement.convertToSRGB($0, width: width, height: height, from: .icc(profile), options: ImageCreatingOptions())
        }
        #expect(converted.pixels == reference)
    }

    @Test func adobeRGBJPEGIsConverted() throws {
        try expectConverted("adobe-rgb.jpg")
    }

    @Test func pngWithICCPIsConvertedBeforePremultiplying() throws {
        try expectConverted("p3.png")
    }

    @Test func webPWithICCPIsConvertedBeforePremultiplying() throws {
        try expectConverted("p3.webp")
    }

    /// Every frame of an APNG (each decoded by libpng as a standalone PNG that repeats `iCCP`) and of
    /// an animated WebP (decoded straight, then premultiplied) is converted, preloaded or lazily.
    @Test(arguments: ["p3-animated.png", "p3-animated.webp"])
    func animationFramesAreConverted(name: String) throws {
        let data = try Fixtures.data("color/\(name)")
        let reference = try expected(name).srgb
        let preloaded = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions())
        try #require(preloaded.frames.count == 2)
        let lazy = try KFCrossPlatformImage(data: data, options: ImageCreatingOptions(preloadAllFrames: false))
        let second = try #require(lazy.frameSource).frame(at: 1, maxSize: nil)
        let count = reference.count
        for index in 0..<count {
            #expect(within(patch(preloaded.frames[0], index), reference[index], 2), "\(name) frame 1 patch \(index)")
            #expect(within(patch(preloaded.frames[1], index), reference[count - 1 - index], 2), "\(name) frame 2 patch \(index)")
            #expect(within(patch(second, index), reference[count - 1 - index], 2), "\(name) lazy frame 2 patch \(index)")
        }
    }

    @Test(.enabled(if: lcmsAvailable)) func cmykJPEGWithAProfileGoesThroughLCMS() throws {
        try expectConverted("cmyk.jpg")
    }

    @Test func cmykJPEGWithoutAProfileUsesTheNaiveFormula() throws {
        try expectConverted("cmyk-noprofile.jpg", tolerance: 1)
    }

    @Test func keepsSourceColorsLeavesValuesAsStored() throws {
        for name in ["p3.jpg", "adobe-rgb.jpg", "p3.png", "p3.webp"] {
            let frame = try decode(name, keepsSourceColors: true)
            for (index, value) in try expected(name).source.enumerated() {
                #expect(within(patch(frame, index), premultiplied(value), 1), "\(name) patch \(index)")
            }
        }
    }

    @Test func aCorruptProfileLeavesThePixelsAsDecoded() throws {
        // Same pixels as p3.jpg; its ICC chunk is a header followed by garbage.
        let corrupt = try decode("corrupt-icc.jpg")
        let untouched = try decode("p3.jpg", keepsSourceColors: true)
        #expect(corrupt.pixels == untouched.pixels)
    }

    @Test func sRGBTaggedImagesAreUnchanged() throws {
        let tagged = try decode("srgb.jpg")
        let untouched = try decode("srgb.jpg", keepsSourceColors: true)
        #expect(tagged.pixels == untouched.pixels)
        guard case .unchanged = ColorManagement.conversion(for: .cicp(colorPrimaries: 1, transferCharacteristics: 13)) else {
            Issue.record("BT.709 primaries with the sRGB transfer should need no conversion")
            return
        }
    }

    @Test(.enabled(if: lcmsAvailable)) func swiftMatrixPathMatchesLCMSWithinOne() throws {
        for name in ["p3.icc", "adobe-rgb.icc"] {
            let profile = try Fixtures.data("color/\(name)")
            var original = cubeSamples()
            for index in stride(from: 3, to: original.count, by: 4) { original[index] = UInt8(truncatingIfNeeded: index * 37) }
            var swift = original
            var lcms = original
            let shaper = try #require(ICCProfileReader(profile)?.matrixShaper)
            let fast = try #require(MatrixShaperTransform(shaper))
            let reference = try #require(LCMSTransform(profile: profile, input: .rgba))
            swift.withUnsafeMutableBytes { fast.apply($0, pixelCount: $0.count / 4) }
            lcms.withUnsafeMutableBytes { reference.apply($0, pixelCount: $0.count / 4, input: .rgba) }
            let worst = zip(swift, lcms).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1, "\(name): largest difference \(worst)")
            // Both leave alpha alone (lcms2 transforms RGBA in place without touching the extra byte).
            let alphas = stride(from: 3, to: original.count, by: 4)
            #expect(alphas.allSatisfy { swift[$0] == original[$0] && lcms[$0] == original[$0] })
        }
    }

    /// The Swift loop gives exactly the bytes of the plain fixed-point arithmetic it stands for, on
    /// every pixel it is handed, in one call or in pieces.
    @Test func matrixLoopMatchesPlainFixedPointArithmetic() throws {
        for name in ["p3.icc", "adobe-rgb.icc"] {
            let shaper = try #require(ICCProfileReader(try Fixtures.data("color/\(name)"))?.matrixShaper)
            let transform = try #require(MatrixShaperTransform(shaper))
            let original = cubeSamples() + scatteredPixels(count: 20_011)
            var whole = original
            whole.withUnsafeMutableBytes { transform.apply($0, pixelCount: $0.count / 4) }
            var pieces = original
            pieces.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                var done = 0
                for size in [1, 7, 1_000, 0, 3] + Array(repeating: 6_000, count: 9) where done < raw.count / 4 {
                    let count = min(size, raw.count / 4 - done)
                    transform.convert(base + done * 4, count: count)
                    done += count
                }
            }
            let reference = plainConversion(original, input: transform.input, matrix: transform.matrix)
            #expect(whole == reference, "\(name)")
            #expect(pieces == reference, "\(name)")
        }
    }

    /// A matrix at the limit the transform accepts (rows summing to 7.8 in absolute value) and curves
    /// reaching both ends still give the plain arithmetic's bytes: the wide output table and the
    /// unsigned sums cover every case.
    @Test func matrixLoopIsExactAtTheExtremes() throws {
        let input = (0..<768).map { UInt16(min(($0 % 256) * 65, 16_383)) }
        let matrix: [Int32] = [70_000, -57_000, 800, -64_000, 63_000, -500, 1_000, 2_000, -124_000]
        let loop = try #require(MatrixShaperLoop(input: input, matrix: matrix, encode: MatrixShaperTransform.encode))
        let codes = [0, 1, 2, 127, 128, 252, 253, 254, 255]
        var original: [UInt8] = []
        for r in codes { for g in codes { for b in codes { original += [UInt8(r), UInt8(g), UInt8(b), 77] } } }
        original += scatteredPixels(count: 5_000)
        var converted = original
        converted.withUnsafeMutableBytes { raw in
            if let base = raw.baseAddress { loop.run(base, count: raw.count / 4) }
        }
        #expect(converted == plainConversion(original, input: input, matrix: matrix))
    }

    /// A gray TRC profile (a gray JPEG's or PNG's) re-curves gray onto sRGB's curve and keeps it gray.
    @Test func grayProfileMatchesLCMS() throws {
        let reference = try expected("gray.icc")
        var pixels = reference.source.flatMap { $0.map { UInt8($0) } }
        try pixels.withUnsafeMutableBytes {
            try ColorManagement.convertToSRGB($0, width: reference.source.count, height: 1,
                                              from: .icc(try Fixtures.data("color/gray.icc")), options: ImageCreatingOptions())
        }
        for (index, value) in reference.srgb.enumerated() {
            let actual = pixels[(index * 4)..<(index * 4 + 4)].map { Int($0) }
            #expect(within(actual, value, 1), "level \(reference.source[index][0]): \(actual) against \(value)")
        }
    }

    @Test func cicpDisplayP3MatchesTheICCDisplayP3() throws {
        var fromCICP = cubeSamples()
        var fromICC = fromCICP
        let options = ImageCreatingOptions()
        try fromCICP.withUnsafeMutableBytes {
            try ColorManagement.convertToSRGB($0, width: 64, height: 64, from: .cicp(colorPrimaries: 12, transferCharacteristics: 13),
                                              options: options)
        }
        try fromICC.withUnsafeMutableBytes {
            try ColorManagement.convertToSRGB($0, width: 64, height: 64, from: .icc(try Fixtures.data("color/p3.icc")),
                                              options: options)
        }
        #expect(fromCICP != cubeSamples())
        #expect(zip(fromCICP, fromICC).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func hdrTransfersAndUnknownCodePointsAreLeftAlone() throws {
        for (primaries, transfer) in [(9, 16), (12, 18), (1, 2), (2, 1), (22, 13), (12, 7)] as [(UInt16, UInt16)] {
            var pixels = cubeSamples()
            try pixels.withUnsafeMutableBytes {
                try ColorManagement.convertToSRGB($0, width: 64, height: 64,
                                                  from: .cicp(colorPrimaries: primaries, transferCharacteristics: transfer),
                                                  options: ImageCreatingOptions())
            }
            #expect(pixels == cubeSamples(), "primaries \(primaries), transfer \(transfer)")
        }
    }

    @Test func unusableProfilesLeaveThePixelsAlone() throws {
        let p3 = try Fixtures.data("color/p3.icc")
        for (index, candidate) in [Data(), Data(repeating: 0xFF, count: 200), p3.prefix(131)].enumerated() {
            var pixels = cubeSamples()
            try pixels.withUnsafeMutableBytes {
                try ColorManagement.convertToSRGB($0, width: 64, height: 64, from: .icc(candidate), options: ImageCreatingOptions())
            }
            #expect(pixels == cubeSamples(), "candidate \(index)")
        }
    }

    /// Damaged profiles lcms2 may still read (and convert with) or refuse: either way no crash, no
    /// error, and the pixels changed exactly when the profile is used.
    @Test func damagedProfilesAreUsedOrRefusedWhole() throws {
        let p3 = try Fixtures.data("color/p3.icc")
        var hugeCount = p3
        hugeCount.replaceSubrange(128..<132, with: [0xFF, 0xFF, 0xFF, 0xFF])
        var farTag = p3
        farTag.replaceSubrange(136..<140, with: [0x7F, 0xFF, 0xFF, 0xF0])
        var shortSize = p3
        shortSize.replaceSubrange(0..<4, with: [0, 0, 0, 10])
        var hugeCurve = p3
        hugeCurve.replaceSubrange((p3.count - 12)..<(p3.count - 8), with: [0x7F, 0xFF, 0xFF, 0xFF])
        let original = cubeSamples()
        for (name, candidate) in [("truncated", p3.prefix(300)), ("huge tag count", hugeCount), ("far tag", farTag),
                                  ("short size", shortSize), ("huge curve", hugeCurve)] {
            var pixels = original
            try pixels.withUnsafeMutableBytes {
                try ColorManagement.convertToSRGB($0, width: 64, height: 64, from: .icc(Data(candidate)), options: ImageCreatingOptions())
            }
            // A profile that is refused leaves every pixel as it was; one that is used changes
            // some; alpha never changes.
            let used = ColorManagement.needsConversion(.icc(Data(candidate)), options: ImageCreatingOptions())
            #expect((pixels != original) == used, "\(name)")
            #expect(stride(from: 3, to: pixels.count, by: 4).allSatisfy { pixels[$0] == original[$0] }, "\(name)")
        }
    }
}
