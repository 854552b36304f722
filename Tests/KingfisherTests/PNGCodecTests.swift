import CLibPNG
import Foundation
import Testing
@testable import Kingfisher

/// One hand-written PNG and the premultiplied RGBA its samples must decode to.
struct PNGSample: Sendable, CustomTestStringConvertible {
    var name: String
    var width: Int
    var height: Int
    var bitDepth: Int
    var colorType: PNGWriter.ColorType
    var samples: [UInt16]
    var interlaced = false
    /// RGB entries for `.palette`.
    var palette: [[UInt8]] = []
    /// tRNS alpha per palette entry (fewer entries than the palette: the rest are opaque).
    var paletteAlpha: [UInt8]?
    /// tRNS colour key for gray (one sample) or RGB (three samples), at the file's bit depth.
    var transparentKey: [UInt16]?

    var testDescription: String { name }

    var hasAlpha: Bool {
        colorType == .grayAlpha || colorType == .rgba || paletteAlpha != nil || transparentKey != nil
    }

    var data: Data {
        var chunks: [PNGWriter.Chunk] = []
        if colorType == .palette {
            chunks.append(PNGWriter.plte(palette.map { ($0[0], $0[1], $0[2]) }))
        }
        if let paletteAlpha {
            chunks.append(PNGWriter.trns(paletteAlpha))
        }
        if let transparentKey {
            chunks.append(PNGWriter.trns(transparentKey.flatMap(PNGWriter.bigEndian16)))
        }
        return PNGWriter.png(width: width, height: height, bitDepth: bitDepth, colorType: colorType,
                             samples: samples, interlaced: interlaced, extraChunks: chunks)
    }

    /// The pixels worked out independently of libpng: low depths scale by 255 / (2^depth − 1);
    /// 16 bits round to nearest as libpng's `png_set_scale_16` does, (v·255 + 32895) >> 16;
    /// the colour key matches exact samples at the file depth; colour is multiplied by alpha, rounded.
    var expected: [UInt8] {
        func eight(_ value: UInt16) -> Int {
            bitDepth == 16 ? (Int(value) * 255 + 32_895) >> 16 : Int(value) * 255 / ((1 << bitDepth) - 1)
        }
        let channels = colorType.channels
        var pixels: [UInt8] = []
        for index in 0..<width * height {
            let s = Array(samples[index * channels..<(index + 1) * channels])
            var rgba: [Int]
            switch colorType {
            case .gray: rgba = [eight(s[0]), eight(s[0]), eight(s[0]), 255]
            case .grayAlpha: rgba = [eight(s[0]), eight(s[0]), eight(s[0]), eight(s[1])]
            case .rgb: rgba = [eight(s[0]), eight(s[1]), eight(s[2]), 255]
            case .rgba: rgba = s.map(eight)
            case .palette:
                let entry = Int(s[0])
                let alpha = paletteAlpha.flatMap { entry < $0.count ? Int($0[entry]) : nil } ?? 255
                rgba = palette[entry].map(Int.init) + [alpha]
            }
            if transparentKey == s {
                rgba[3] = 0
            }
            let a = rgba[3]
            pixels += [UInt8((rgba[0] * a + 127) / 255), UInt8((rgba[1] * a + 127) / 255),
                       UInt8((rgba[2] * a + 127) / 255), UInt8(a)]
        }
        return pixels
    }

    /// Samples that cover the range of the depth in a scattered order, from a fixed formula.
    static func pattern(count: Int, bitDepth: Int, seed: Int = 0) -> [UInt16] {
        let modulus = 1 << bitDepth
        return (0..<count).map { UInt16((($0 + seed) &* 40_503 &+ 4_660) % modulus) }
    }

    /// A palette of `count` distinct colours.
    static func palette(_ count: Int) -> [[UInt8]] {
        (0..<count).map { (index: Int) -> [UInt8] in
            let red = UInt8(index * 7 % 256)
            let green = UInt8(255 - index % 256)
            let blue = UInt8(index * 53 % 256)
            return [red, green, blue]
        }
    }

    static func plain(_ colorType: PNGWriter.ColorType, depth: Int, width: Int = 13, height: Int = 7,
                      interlaced: Bool = false) -> PNGSample {
        let samples: [UInt16]
        var palette: [[UInt8]] = []
        if colorType == .palette {
            let entries = depth == 8 ? 200 : 1 << depth
            palette = Self.palette(entries)
            samples = pattern(count: width * height, bitDepth: depth).map { $0 % UInt16(entries) }
        } else {
            samples = pattern(count: width * height * colorType.channels, bitDepth: depth)
        }
        let name = "\(colorType) \(depth)-bit \(width)×\(height)" + (interlaced ? " Adam7" : "")
        return PNGSample(name: name, width: width, height: height, bitDepth: depth, colorType: colorType,
                         samples: samples, interlaced: interlaced, palette: palette)
    }

    /// `plain` with a tRNS chunk: the colour key of the fourth pixel, or alphas 0, 255, 128… for
    /// the first half of the palette.
    static func keyed(_ colorType: PNGWriter.ColorType, depth: Int, width: Int = 13, height: Int = 7,
                      interlaced: Bool = false) -> PNGSample {
        var sample = plain(colorType, depth: depth, width: width, height: height, interlaced: interlaced)
        sample.name += " tRNS"
        if colorType == .palette {
            let count = max(1, sample.palette.count / 2)
            sample.paletteAlpha = (0..<count).map { [0, 255, 128, 1, 254, 77][$0 % 6] }
        } else {
            let channels = colorType.channels
            sample.transparentKey = Array(sample.samples[3 * channels..<4 * channels])
        }
        return sample
    }

    static let all: [PNGSample] = {
        var cases: [PNGSample] = []
        for depth in [1, 2, 4, 8, 16] { cases.append(plain(.gray, depth: depth)) }
        for depth in [2, 8, 16] { cases.append(keyed(.gray, depth: depth)) }
        for depth in [8, 16] {
            cases += [plain(.grayAlpha, depth: depth), plain(.rgb, depth: depth), keyed(.rgb, depth: depth),
                      plain(.rgba, depth: depth)]
        }
        for depth in [1, 2, 4, 8] { cases += [plain(.palette, depth: depth), keyed(.palette, depth: depth)] }
        cases += [
            plain(.gray, depth: 1, width: 13, height: 11, interlaced: true),
            plain(.gray, depth: 8, width: 3, height: 2, interlaced: true),
            keyed(.palette, depth: 4, width: 13, height: 11, interlaced: true),
            plain(.rgba, depth: 8, width: 13, height: 11, interlaced: true),
            plain(.rgba, depth: 8, width: 1, height: 1, interlaced: true),
            plain(.rgb, depth: 16, width: 9, height: 9, interlaced: true),
            plain(.rgba, depth: 16, width: 11, height: 9, interlaced: true),
            plain(.grayAlpha, depth: 16, width: 5, height: 3, interlaced: true),
            keyed(.gray, depth: 16, width: 17, height: 10, interlaced: true),
        ]
        return cases
    }()
}

@Suite struct PNGCodecTests {
    // MARK: Every colour type and bit depth

    @Test(arguments: PNGSample.all)
    func decodesExactPixels(_ sample: PNGSample) throws {
        let image = try KFCrossPlatformImage(data: sample.data)
        let frame = image.firstFrame
        #expect(frame.width == sample.width && frame.height == sample.height)
        #expect(image.frames.count == 1)
        let expected = sample.expected
        if sample.bitDepth == 16 && sample.interlaced {
            // Read through 16-bit linear light to avoid libpng's 16-to-8 interlace bug
            // (PNGCodec+Linear.swift): colour within 1 of the direct path, alpha exact.
            let worst = zip(frame.pixels, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(worst <= 1)
            #expect(stride(from: 3, to: expected.count, by: 4).allSatisfy { frame.pixels[$0] == expected[$0] })
        } else {
            #expect(frame.pixels == expected)
        }
        let opaque = stride(from: 3, to: expected.count, by: 4).allSatisfy { expected[$0] == 255 }
        #expect(image.isOpaque == opaque)
    }

    @Test(arguments: PNGSample.all)
    func probeReadsTheHeader(_ sample: PNGSample) throws {
        let header = try ImageHeader(data: sample.data)
        #expect(header.format == .PNG)
        #expect(header.pixelWidth == sample.width && header.pixelHeight == sample.height)
        #expect(header.frameCount == 1 && header.loopCount == 0)
        #expect(header.hasAlpha == sample.hasAlpha)
    }

    @Test func sixteenBitSamplesRoundToNearest() throws {
        // Truncation would give 0x12 for 0x12FF; libpng rounds v / 257 to nearest.
        let values: [UInt16] = [0x1234, 0x12FF, 0x7FFF, 0x8000, 0x0080, 0xFFFF, 0x1235]
        var sample = PNGSample(name: "gray 16", width: values.count, height: 1, bitDepth: 16,
                               colorType: .gray, samples: values)
        sample.transparentKey = [0x1235]
        let frame = try KFCrossPlatformImage(data: sample.data).firstFrame
        #expect(frame.pixels.enumerated().filter { $0.offset % 4 == 0 }.map(\.element) == [0x12, 0x13, 0x7F, 0x80, 0, 0xFF, 0])
        // The key matches 16-bit samples exactly: 0x1234 and 0x1235 share an 8-bit value.
        #expect(frame.pixel(x: 0, y: 0) == RGBA8(r: 0x12, g: 0x12, b: 0x12, a: 255))
        #expect(frame.pixel(x: 6, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
    }

    @Test func paletteAlphaIsPremultiplied() throws {
        let sample = PNGSample(name: "palette", width: 3, height: 1, bitDepth: 8, colorType: .palette,
                               samples: [0, 1, 2], palette: [[200, 100, 50], [255, 255, 255], [10, 20, 30]],
                               paletteAlpha: [128, 0])
        let image = try KFCrossPlatformImage(data: sample.data)
        #expect(image.firstFrame.pixel(x: 0, y: 0) == RGBA8(r: 100, g: 50, b: 25, a: 128))
        #expect(image.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 0, g: 0, b: 0, a: 0))
        #expect(image.firstFrame.pixel(x: 2, y: 0) == RGBA8(r: 10, g: 20, b: 30, a: 255))
        #expect(!image.isOpaque)
    }

    @Test func gammaOtherThanSRGBIsConverted() throws {
        func middleGray(gamma: UInt32) throws -> UInt8 {
            let data = PNGWriter.png(width: 3, height: 1, bitDepth: 8, colorType: .gray, samples: [0, 128, 255],
                                     extraChunks: [PNGWriter.gama(gamma)])
            let frame = try KFCrossPlatformImage(data: data).firstFrame
            #expect(frame.pixel(x: 0, y: 0)?.r == 0 && frame.pixel(x: 2, y: 0)?.r == 255)
            return try #require(frame.pixel(x: 1, y: 0)?.r)
        }
        #expect(try middleGray(gamma: 45_455) == 128)  // sRGB's own gamma: untouched
        let linear = try middleGray(gamma: 100_000)  // linear 0.5 is about 186 in sRGB
        #expect((184...189).contains(linear))
    }

    @Test func warningsAloneAreSuccess() throws {
        // A gAMA chunk of the wrong length is a benign error: libpng warns and ignores it.
        let data = PNGWriter.png(width: 3, height: 1, bitDepth: 8, colorType: .gray, samples: [0, 128, 255],
                                 extraChunks: [PNGWriter.Chunk(type: "gAMA", data: [0, 1, 2])])
        let warned = data.withUnsafeBytes { raw in
            PNGControl.with { image in
                png_image_begin_read_from_memory(image, raw.baseAddress, raw.count) != 0
                    && image.pointee.warning_or_error & 0x03 == kf_png_image_warning
            }
        }
        #expect(warned)
        let image = try KFCrossPlatformImage(data: data)
        #expect(image.firstFrame.pixel(x: 1, y: 0) == RGBA8(r: 128, g: 128, b: 128, a: 255))
        #expect(try ImageHeader(data: data).pixelWidth == 3)
    }

    // MARK: Round trips

    @Test func opaqueGradientRoundTripsExactly() throws {
        let original = TestImages.gradient(width: 37, height: 23)
        let data = try original.encoded(as: .PNG)
        #expect(data[25] == PNGWriter.ColorType.rgb.rawValue)  // IHDR colour type: alpha dropped
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(decoded.firstFrame.pixels == original.firstFrame.pixels)
        #expect(decoded.isOpaque)
        #expect(try ImageHeader(data: data).hasAlpha == false)
    }

    @Test func alphaGradientRoundTripsWithinOne() throws {
        let original = TestImages.gradient(width: 64, height: 16, alpha: true)
        let data = try original.encoded(as: .PNG)
        #expect(data[25] == PNGWriter.ColorType.rgba.rawValue)
        let decoded = try KFCrossPlatformImage(data: data)
        #expect(!decoded.isOpaque)
        #expect(try ImageHeader(data: data).hasAlpha)
        let before = original.firstFrame.pixels
        let after = decoded.firstFrame.pixels
        try #require(after.count == before.count)
        var worst = 0
        for pixel in stride(from: 0, to: before.count, by: 4) {
            #expect(after[pixel + 3] == before[pixel + 3])
            if before[pixel + 3] == 0 {
                #expect(after[pixel..<pixel + 3].allSatisfy { $0 == 0 })
                continue
            }
            for channel in pixel..<pixel + 3 {
                worst = max(worst, abs(Int(after[channel]) - Int(before[channel])))
            }
        }
        #expect(worst <= 1)
    }

    @Test func encodingIsDeterministic() throws {
        for alpha in [false, true] {
            let image = TestImages.gradient(width: 50, height: 40, alpha: alpha)
            let first = try image.encoded(as: .PNG)
            let again = try image.encoded(as: .PNG)
            let second = try TestImages.gradient(width: 50, height: 40, alpha: alpha).encoded(as: .PNG)
            #expect(first == again && first == second)
            #expect(first.starts(with: PNGWriter.signature))
        }
    }

    @Test func encodesOnlyTheFirstFrame() throws {
        let frames = [TestImages.gradientFrame(width: 8, height: 8, seed: 1), TestImages.gradientFrame(width: 8, height: 8, seed: 2)]
        let animation = try #require(KFCrossPlatformImage(frames: frames.map { $0.withDuration(0.1) }))
        let decoded = try KFCrossPlatformImage(data: animation.encoded(as: .PNG))
        #expect(decoded.frames.count == 1)
        #expect(decoded.firstFrame.pixels == frames[0].pixels)
    }

    @Test func appliesScaleAndIgnoresMinimumPixelSize() throws {
        let data = try TestImages.gradient(width: 40, height: 20).encoded(as: .PNG)
        let options = ImageCreatingOptions(scale: 2, minimumPixelSize: CGSize(width: 5, height: 5))
        let image = try KFCrossPlatformImage(data: data, options: options)
        #expect(image.pixelWidth == 40 && image.pixelHeight == 20)
        #expect(image.size == CGSize(width: 20, height: 10))
    }
}

extension PNGCodecTests {
    // MARK: Limits

    /// A file whose IHDR claims any size, with a token IDAT that could never fill it.
    static func claimedSize(width: UInt32, height: UInt32) -> Data {
        PNGWriter.file([
            PNGWriter.ihdr(width: width, height: height, bitDepth: 8, colorType: .rgba),
            PNGWriter.Chunk(type: "IDAT", data: PNGWriter.zlibStored([0, 1, 2, 3, 4])),
            PNGWriter.Chunk(type: "IEND", data: []),
        ])
    }

    /// The `.processorError(.imageLimitExceeded)` violation of a PNG decode, or `nil` for any other outcome.
    static func limitViolation(_ data: Data, options: ImageCreatingOptions = ImageCreatingOptions()) -> ImageLimitViolation? {
        do {
            _ = try KFCrossPlatformImage(data: data, options: options)
        } catch let error as KingfisherError {
            if case .processorError(reason: .imageLimitExceeded(format: .PNG, let violation)) = error {
                return violation
            }
        } catch {}
        return nil
    }

    @Test func hugeHeaderIsRefusedBeforeAllocating() throws {
        let data = Self.claimedSize(width: 100_000, height: 100_000)
        let header = try ImageHeader(data: data)
        #expect(header.pixelWidth == 100_000 && header.pixelHeight == 100_000 && header.hasAlpha)
        // 40 GB of RGBA would be the allocation; the limit stops it first.
        #expect(Self.limitViolation(data) == .pixelsPerFrame(width: 100_000, height: 100_000, limit: 50_000_000))
    }

    @Test func customLimitIsHonoured() throws {
        let tight = ImageCreatingOptions(limits: ImageDecodingLimits(maxPixelsPerFrame: 100))
        let twenty = try TestImages.gradient(width: 20, height: 20).encoded(as: .PNG)
        #expect(Self.limitViolation(twenty, options: tight) == .pixelsPerFrame(width: 20, height: 20, limit: 100))
        let ten = try TestImages.gradient(width: 10, height: 10).encoded(as: .PNG)
        #expect(try KFCrossPlatformImage(data: ten, options: tight).pixelWidth == 10)
    }

    @Test func libpngsOwnDimensionLimitIsADecodingError() {
        // libpng refuses a width or height over 1,000,000 in IHDR, whatever our limits allow.
        let data = Self.claimedSize(width: 2_000_000, height: 1)
        let error = decodingFailure { _ = try KFCrossPlatformImage(data: data) }
        #expect(error?.hasPrefix("Cannot decode PNG data: ") == true)
        #expect(Self.limitViolation(data) == nil)
    }

    // MARK: Damage

    /// The description of a `.decodingFailed` PNG error thrown by `body`, or `nil`.
    func decodingFailure(_ body: () throws -> Void) -> String? {
        do {
            try body()
        } catch let error as KingfisherError {
            if case .processorError(reason: .decodingFailed(format: .PNG, _)) = error {
                return error.localizedDescription
            }
        } catch {}
        return nil
    }

    @Test func corruptDataReportsLibpngsReason() throws {
        let valid = [UInt8](PNGSample.plain(.rgb, depth: 8).data)
        var badCRC = valid
        badCRC[18] ^= 0x01  // inside IHDR's width
        let crc = decodingFailure { _ = try KFCrossPlatformImage(data: Data(badCRC)) }
        #expect(crc?.hasPrefix("Cannot decode PNG data: ") == true && crc?.contains("CRC") == true)
        #expect(decodingFailure { _ = try ImageHeader(data: Data(badCRC)) }?.hasPrefix("Cannot decode PNG data: the header is unreadable: ") == true)

        let truncated = Data(valid.prefix(valid.count - 40))  // inside IDAT
        let short = decodingFailure { _ = try KFCrossPlatformImage(data: truncated) }
        #expect(short.map { $0.count > "Cannot decode PNG data: ".count } == true)
        #expect(try ImageHeader(data: truncated).pixelWidth == 13)  // the header is intact

        #expect(decodingFailure { _ = try KFCrossPlatformImage(data: Data(valid.prefix(8))) } != nil)
    }

    @Test(arguments: ["rgba", "palette", "interlaced"])
    func damagedFilesOnlyThrowKingfisherErrors(_ kind: String) throws {
        let file: Data
        switch kind {
        case "rgba": file = try TestImages.gradient(width: 24, height: 24, alpha: true).encoded(as: .PNG)
        case "palette": file = PNGSample.keyed(.palette, depth: 4, width: 24, height: 24).data
        default: file = PNGSample.keyed(.rgb, depth: 16, width: 24, height: 24, interlaced: true).data
        }
        let damaged = Mutations.damaged(file, count: 3000)
        let result = Mutations.decodeAll(damaged)
        #expect(result.foreignErrors == 0)
        #expect(result.decoded < damaged.count)
        var foreignProbeErrors = 0
        for input in damaged {
            do {
                _ = try ImageHeader(data: input)
            } catch is KingfisherError {
                continue
            } catch {
                foreignProbeErrors += 1
            }
        }
        #expect(foreignProbeErrors == 0)
    }
}
