import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// AVIF, HEIC and JPEG XL through the cache: which format each serializer writes, the original
/// bytes kept on disk, and a disk round trip per format. The fixtures in `Fixtures/pipeline` are a
/// 48×32 gradient (`gradient.png`) encoded by avifenc, heif-enc and cjxl (`make-fixtures.sh`).
@Suite struct FormatPipelineTests {
    /// The three files, by name, with their format.
    static let files: [(name: String, format: ImageFormat)] = [
        ("gradient.avif", .AVIF), ("gradient.heic", .HEIC), ("gradient.jxl", .JXL),
    ]
    static let names = files.map(\.name)

    /// The gradient the fixtures were encoded from.
    static func source() throws -> KFCrossPlatformImage {
        try KFCrossPlatformImage(data: Fixtures.data("pipeline/gradient.png"))
    }

    /// An image with three frames, from a GIF.
    static func animation() throws -> KFCrossPlatformImage {
        try KFCrossPlatformImage(data: KingfisherFidelityTests.animatedGIF)
    }

    @Test func theDefaultSerializerChoosesTheFormatByTheOriginal() throws {
        let heic = try Fixtures.data("pipeline/gradient.heic")
        let avif = try Fixtures.data("pipeline/gradient.avif")
        let jxl = try Fixtures.data("pipeline/gradient.jxl")
        let opaque = TestImages.gradient(width: 8, height: 8)
        let alpha = TestImages.gradient(width: 8, height: 8, alpha: true)
        let animated = try Self.animation()
        #expect(animated.isAnimated)
        #expect(DefaultCacheSerializer.format(for: opaque, original: avif) == .AVIF)
        #expect(DefaultCacheSerializer.format(for: alpha, original: avif) == .AVIF)
        #expect(DefaultCacheSerializer.format(for: opaque, original: jxl) == .JXL)
        // HEIC cannot be written: JPEG keeps an opaque still small, PNG keeps alpha.
        #expect(DefaultCacheSerializer.format(for: opaque, original: heic) == .JPEG)
        #expect(DefaultCacheSerializer.format(for: alpha, original: heic) == .PNG)
        #expect(DefaultCacheSerializer.format(for: animated, original: heic) == .GIF)
        #expect(DefaultCacheSerializer.format(for: animated, original: avif) == .AVIF)
        #expect(DefaultCacheSerializer.format(for: animated, original: jxl) == .JXL)
    }

    @Test func aProcessedHEICIsStoredAsJPEGWhenOpaqueAndAsPNGWithAlpha() throws {
        let heic = try Fixtures.data("pipeline/gradient.heic")
        let options = KingfisherParsedOptionsInfo(nil)
        let opaque = TestImages.gradient(width: 24, height: 16)
        let jpeg = try #require(DefaultCacheSerializer.default.data(with: opaque, original: heic))
        #expect(jpeg.kf.imageFormat == .JPEG)
        let alpha = TestImages.gradient(width: 24, height: 16, alpha: true)
        let png = try #require(DefaultCacheSerializer.default.data(with: alpha, original: heic))
        #expect(png.kf.imageFormat == .PNG)
        #expect(DefaultCacheSerializer.default.image(with: png, options: options) == alpha)
        let gif = try #require(DefaultCacheSerializer.default.data(with: Self.animation(), original: heic))
        #expect(gif.kf.imageFormat == .GIF)
        #expect(try ImageHeader(data: gif).frameCount == 3)
        #expect(opaque.kf.data(format: .HEIC) == nil)
    }

    @Test func aProcessedAVIFOrJPEGXLIsStoredInItsOwnFormat() throws {
        let image = TestImages.gradient(width: 24, height: 16)
        for (name, format) in [("gradient.avif", ImageFormat.AVIF), ("gradient.jxl", .JXL)] {
            let original = try Fixtures.data("pipeline/\(name)")
            let data = try #require(DefaultCacheSerializer.default.data(with: image, original: original), "\(format)")
            #expect(data.kf.imageFormat == format)
            let back = try KFCrossPlatformImage(data: data)
            #expect(back.pixelWidth == 24 && back.pixelHeight == 16)
            #expect(TestImages.meanDifference(back.frames[0], image.frames[0]) < 3, "\(format)")
        }
    }

    @Test func anAnimationWhoseFormatsEncoderKeepsOneFrameBecomesAGIF() throws {
        let animated = try Self.animation()
        for name in ["gradient.avif", "gradient.jxl"] {
            let original = try Fixtures.data("pipeline/\(name)")
            let data = try #require(DefaultCacheSerializer.default.data(with: animated, original: original))
            // Either the format's encoder kept all three frames, or the frames went to a GIF.
            #expect(try ImageHeader(data: data).frameCount == 3, "\(name) gave \(data.kf.imageFormat)")
        }
    }

    @Test func formatIndicatedSerializersWriteAVIFAndLosslessJPEGXL() throws {
        let image = TestImages.gradient(width: 24, height: 16)
        let options = KingfisherParsedOptionsInfo(nil)
        let avif = try #require(FormatIndicatedCacheSerializer.avif.data(with: image, original: nil))
        #expect(avif.kf.imageFormat == .AVIF)
        let slower = try #require(FormatIndicatedCacheSerializer.avif(compressionQuality: 0.5, speed: 2).data(with: image, original: nil))
        #expect(slower.kf.imageFormat == .AVIF)
        let jxl = try #require(FormatIndicatedCacheSerializer.jxl.data(with: image, original: nil))
        #expect(jxl.kf.imageFormat == .JXL)
        let back = try #require(FormatIndicatedCacheSerializer.jxl.image(with: jxl, options: options))
        #expect(TestImages.maxDifference(back.frames[0], image.frames[0]) == 0, "lossless JPEG XL gives the pixels back")
        let lossy = try #require(FormatIndicatedCacheSerializer.jxl(compressionQuality: 0.6, effort: 3).data(with: image, original: nil))
        #expect(lossy.kf.imageFormat == .JXL)
    }

    @MainActor @Test func serializeAsChoosesAFormatIndicatedSerializerForAVIFAndJPEGXLOnly() {
        let url = URL(string: "http://127.0.0.1:1/a.avif")
        let image = TestImages.gradient(width: 4, height: 4)
        let formats: [(ImageFormat, String)] = [(.AVIF, "FormatIndicatedCacheSerializer"), (.JXL, "FormatIndicatedCacheSerializer"),
                                                 (.HEIC, "DefaultCacheSerializer")]
        for (format, typeName) in formats {
            let serializer = KF.url(url).serialize(as: format).options.cacheSerializer
            #expect(String(describing: type(of: serializer)) == typeName, "\(format)")
        }
        // The HEIC choice is the default serializer itself: a processed image is JPEG or PNG.
        let heicSerializer = KF.url(url).serialize(as: .HEIC).options.cacheSerializer
        #expect(heicSerializer.data(with: image, original: BMFF.still(["heic"], coding: "hvc1"))?.kf.imageFormat == .JPEG)
    }

    @Test(arguments: names)
    func anOriginalFetchedOverHTTPIsKeptOnDiskByteForByte(name: String) async throws {
        let original = try Fixtures.data("pipeline/\(name)")
        let keeping = {
            var serializer = DefaultCacheSerializer()
            serializer.preferCacheOriginalData = true
            return serializer
        }()
        try await ManagerKit.run { server, manager, cache in
            server.route("/\(name)", .ok(original))
            let source = Source.network(server.url("/\(name)"))
            let fetched = try await ManagerKit.retrieve(manager, source, [.cacheSerializer(keeping), .waitForCache]).get()
            #expect(fetched.image.pixelWidth == 48 && fetched.image.pixelHeight == 32)
            let stored = try #require(try cache.diskStorage.value(forKey: source.cacheKey))
            #expect(stored == original)
        }
    }

    @Test(arguments: names, [true, false])
    func aDiskRoundTripGivesTheSamePixels(name: String, keepsOriginal: Bool) async throws {
        let format = try #require(Self.files.first { $0.name == name }?.format)
        let original = try Fixtures.data("pipeline/\(name)")
        let serializer = {
            var serializer = DefaultCacheSerializer()
            serializer.preferCacheOriginalData = keepsOriginal
            return serializer
        }()
        let reference = try Self.source()
        try await ManagerKit.run { server, manager, cache in
            server.route("/\(name)", .ok(original))
            let source = Source.network(server.url("/\(name)"))
            let options: KingfisherOptionsInfo = [.cacheSerializer(serializer), .waitForCache]
            let fetched = try await ManagerKit.retrieve(manager, source, options).get()
            #expect(fetched.cacheType == .none)
            // The decoder itself: close to the gradient the file was encoded from.
            #expect(TestImages.meanDifference(fetched.image.frames[0], reference.frames[0]) < 4, "\(name) decoded")
            cache.clearMemoryCache()
            let again = try await ManagerKit.retrieve(manager, source, options).get()
            #expect(again.cacheType == .disk)
            let stored = try #require(try cache.diskStorage.value(forKey: source.cacheKey))
            if keepsOriginal {
                #expect(TestImages.maxDifference(again.image.frames[0], fetched.image.frames[0]) == 0)
            } else {
                // Stored re-encoded, in the original's format (HEIC, which cannot be written, as JPEG).
                #expect(stored.kf.imageFormat == (format == .HEIC ? .JPEG : format))
                #expect(TestImages.meanDifference(again.image.frames[0], fetched.image.frames[0]) < 2, "\(name) re-encoded")
            }
            #expect(server.requestCount(for: "/\(name)") == 1)
        }
    }
}
