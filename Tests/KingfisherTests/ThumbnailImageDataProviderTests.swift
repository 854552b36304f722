import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Thumbnails of real files, on disk and served over HTTP by a local server.
@Suite struct ThumbnailImageDataProviderTests {
    typealias Failure = ThumbnailImageDataProvider.ThumbnailImageDataProviderError

    /// Writes `data` to a new temporary file named `name`; the caller removes the folder.
    static func file(_ data: Data, named name: String) throws -> (URL, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-thumb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return (url, folder)
    }

    /// The error `provider` fails with; `nil` when it succeeds.
    static func failure(of provider: ThumbnailImageDataProvider) async -> (any Error)? {
        do {
            _ = try await provider.data()
            return nil
        } catch {
            return error
        }
    }

    @Test func aLocalJPEGBecomesAJPEGThumbnailWithinMaxPixelSize() async throws {
        let jpeg = try TestImages.gradient(width: 64, height: 32).encoded(as: .JPEG)
        let (url, folder) = try Self.file(jpeg, named: "photo.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let provider = ThumbnailImageDataProvider(url: url, maxPixelSize: 16)
        #expect(provider.cacheKey == "\(url.absoluteString)_thumb_16.0_true")
        #expect(provider.alwaysCreateThumbnail && provider.contentURL == url)
        let thumbnail = try await provider.data()
        #expect(thumbnail.kf.imageFormat == .JPEG)
        let image = try KFCrossPlatformImage(data: thumbnail)
        #expect(image.pixelWidth == 16 && image.pixelHeight == 8)
        // The callback form gives the same bytes.
        let viaHandler = try await withCheckedThrowingContinuation { continuation in
            provider.data { continuation.resume(with: $0) }
        }
        #expect(viaHandler == thumbnail)
    }

    @Test func anImageAlreadySmallIsNotEnlargedAndAnAnimationKeepsItsFirstFrame() async throws {
        let (url, folder) = try Self.file(KingfisherFidelityTests.animatedGIF, named: "anim.gif")
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnail = try await ThumbnailImageDataProvider(url: url, maxPixelSize: 100, cacheKey: "mine").data()
        let image = try KFCrossPlatformImage(data: thumbnail)
        #expect(thumbnail.kf.imageFormat == .GIF)
        #expect(image.pixelWidth == 6 && image.pixelHeight == 4 && image.frames.count == 1)
        #expect(ThumbnailImageDataProvider(url: url, maxPixelSize: 100, cacheKey: "mine").cacheKey == "mine")
    }

    @Test func aServedPNGBecomesAPNGThumbnail() async throws {
        try await DownloaderKit.run { server, _ in
            server.route("/big.png", .ok(try TestImages.gradient(width: 60, height: 90).encoded(as: .PNG)))
            let provider = ThumbnailImageDataProvider(
                url: server.url("/big.png"), maxPixelSize: 30, alwaysCreateThumbnail: false)
            #expect(provider.cacheKey.hasSuffix("_thumb_30.0_false"))
            let thumbnail = try await provider.data()
            let image = try KFCrossPlatformImage(data: thumbnail)
            #expect(thumbnail.kf.imageFormat == .PNG && image.pixelWidth == 20 && image.pixelHeight == 30)
            #expect(server.requestCount(for: "/big.png") == 1)
        }
    }

    @Test func theManagerCachesTheThumbnailUnderTheProvidersKey() async throws {
        let jpeg = try TestImages.gradient(width: 40, height: 40).encoded(as: .JPEG)
        let (url, folder) = try Self.file(jpeg, named: "square.jpg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (cache, cacheFolder) = try ManagerKit.makeCache()
        defer { try? FileManager.default.removeItem(at: cacheFolder) }
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let provider = ThumbnailImageDataProvider(url: url, maxPixelSize: 10)
        let result = try await manager.retrieveImage(with: .provider(provider))
        #expect(result.image.pixelWidth == 10 && result.cacheType == .none)
        cache.clearMemoryCache()
        #expect(cache.imageCachedType(forKey: provider.cacheKey) == .disk)
    }

    @Test func eachFailureHasItsReason() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("kf-thumb-missing-\(UUID().uuidString).jpg")
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: missing, maxPixelSize: 10)) as? Failure == .invalidImageSource)
        let ftp = try #require(URL(string: "ftp://127.0.0.1/a.jpg"))
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: ftp, maxPixelSize: 10)) as? Failure == .invalidImageSource)

        let (text, textFolder) = try Self.file(Data("<html>not an image</html>".utf8), named: "page.jpg")
        defer { try? FileManager.default.removeItem(at: textFolder) }
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: text, maxPixelSize: 10)) as? Failure == .invalidImageSource)

        let jpeg = try TestImages.gradient(width: 16, height: 16).encoded(as: .JPEG)
        let (photo, photoFolder) = try Self.file(jpeg, named: "photo.jpg")
        defer { try? FileManager.default.removeItem(at: photoFolder) }
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: photo, maxPixelSize: 0)) as? Failure == .invalidThumbnail)
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: photo, maxPixelSize: .nan)) as? Failure == .invalidThumbnail)
        let cut = Data(jpeg.prefix(40))
        let (truncated, truncatedFolder) = try Self.file(cut, named: "cut.jpg")
        defer { try? FileManager.default.removeItem(at: truncatedFolder) }
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: truncated, maxPixelSize: 10)) is Failure)

        let (heic, heicFolder) = try Self.file(try Fixtures.data("heic/alpha.heic"), named: "alpha.heic")
        defer { try? FileManager.default.removeItem(at: heicFolder) }
        #expect(await Self.failure(of: ThumbnailImageDataProvider(url: heic, maxPixelSize: 10)) as? Failure == .writeDataError)
        // finalizeDataError is what an encoder's failure becomes; no file here makes one fail.
        #expect(Failure.finalizeDataError != .writeDataError)
    }
}
