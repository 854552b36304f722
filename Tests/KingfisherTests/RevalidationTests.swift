import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// `.revalidateExpiredCache`: validators kept with disk entries, conditional requests for expired
/// ones, `304` refreshing the entry without a body, `no-store` kept off the disk.
@Suite struct RevalidationTests {
    /// A cache on a temporary folder with a stopped clock, as the cache tests use.
    typealias Fixture = ImageCacheTests.Fixture

    static let png = DownloaderKit.png
    static let other = (try? TestImages.gradient(width: 20, height: 10).encoded(as: .PNG)) ?? Data()

    /// Retrieves `path` with revalidation (and `waitForCache`), after clearing the memory cache so the disk is asked.
    static func retrieve(_ manager: KingfisherManager, _ server: TestHTTPServer, _ path: String, revalidate: Bool = true,
                         processor: any ImageProcessor = DefaultImageProcessor.default) async throws -> RetrieveImageResult {
        manager.cache.clearMemoryCache()
        var options: KingfisherOptionsInfo = [.waitForCache, .processor(processor)]
        if revalidate { options.append(.revalidateExpiredCache) }
        return try await manager.retrieveImage(with: server.url(path), options: options)
    }

    @Test(arguments: [false, true])
    func expiredEntryIsRevalidatedAndA304RefreshesIt(processed: Bool) async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let processor: any ImageProcessor = processed ? DownsamplingImageProcessor(size: CGSize(width: 8, height: 8)) : DefaultImageProcessor.default
        try await DownloaderKit.run { server, downloader in
            let manager = KingfisherManager(downloader: downloader, cache: fixture.cache)
            server.route("/a.png", [
                .ok(Self.png, contentType: "image/png").withHeaders([("ETag", "\"v1\""), ("Cache-Control", "public, max-age=60")]),
                TestResponse.status(304).withHeaders([("ETag", "\"v1\""), ("Cache-Control", "max-age=120")]),
            ])
            let first = try await Self.retrieve(manager, server, "/a.png", processor: processor)
            #expect(first.cacheType == .none)

            // Within max-age: from the disk, no request.
            fixture.clock.advance(by: 59)
            #expect(try await Self.retrieve(manager, server, "/a.png", processor: processor).cacheType == .disk)
            #expect(server.requestCount(for: "/a.png") == 1)

            // Expired: one conditional request; the 304 answers from the disk.
            fixture.clock.advance(by: 2)
            let revalidated = try await Self.retrieve(manager, server, "/a.png", processor: processor)
            #expect(revalidated.cacheType == .disk)
            #expect(revalidated.image.pixelWidth == first.image.pixelWidth)
            let requests = server.requests(for: "/a.png")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"v1\"")
            #expect(requests.first?.header("If-None-Match") == nil)

            // The 304's max-age (120 s) is the new lifetime.
            fixture.clock.advance(by: 119)
            #expect(try await Self.retrieve(manager, server, "/a.png", processor: processor).cacheType == .disk)
            #expect(server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test func aChangedImageReplacesTheExpiredEntry() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await DownloaderKit.run { server, downloader in
            let manager = KingfisherManager(downloader: downloader, cache: fixture.cache)
            server.route("/a.png", [
                .ok(Self.png).withHeaders([("Last-Modified", "Mon, 02 Nov 2026 10:00:00 GMT"), ("Cache-Control", "max-age=10")]),
                .ok(Self.other).withHeaders([("Last-Modified", "Tue, 03 Nov 2026 10:00:00 GMT"), ("Cache-Control", "max-age=10")]),
            ])
            #expect(try await Self.retrieve(manager, server, "/a.png").image.pixelWidth == 16)
            fixture.clock.advance(by: 11)
            let changed = try await Self.retrieve(manager, server, "/a.png")
            #expect(changed.cacheType == .none)
            #expect(changed.image.pixelWidth == 20)
            #expect(server.requests(for: "/a.png").last?.header("If-Modified-Since") == "Mon, 02 Nov 2026 10:00:00 GMT")
            #expect(try await Self.retrieve(manager, server, "/a.png").image.pixelWidth == 20)
        }
    }

    @Test func noStoreKeepsTheImageOffTheDisk() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await DownloaderKit.run { server, downloader in
            let manager = KingfisherManager(downloader: downloader, cache: fixture.cache)
            server.route("/a.png", .ok(Self.png).withHeaders([("Cache-Control", "no-store")]))
            _ = try await Self.retrieve(manager, server, "/a.png")
            #expect(!fixture.cache.diskStorage.isCached(forKey: server.url("/a.png").absoluteString))
            #expect(try await Self.retrieve(manager, server, "/a.png").cacheType == .none)
            #expect(server.requestCount(for: "/a.png") == 2)
        }
    }

    @Test func withoutTheOptionAnExpiredEntryIsFetchedAgainUnconditionally() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await DownloaderKit.run { server, downloader in
            let manager = KingfisherManager(downloader: downloader, cache: fixture.cache)
            server.route("/a.png", .ok(Self.png).withHeaders([("ETag", "\"v1\"")]))
            _ = try await Self.retrieve(manager, server, "/a.png", revalidate: false)
            fixture.clock.advance(by: 8 * 86_400)
            #expect(try await Self.retrieve(manager, server, "/a.png", revalidate: false).cacheType == .none)
            #expect(server.requests(for: "/a.png").last?.header("If-None-Match") == nil)
        }
    }

    @Test func validatorsAreReadFromHeaders() {
        let validators = ResponseValidators(fields: [("ETag", "W/\"x\""), ("cache-control", "public, max-age=30, s-maxage=90")])
        #expect(validators.etag == "W/\"x\"")
        #expect(validators.maxAge == 90)
        #expect(!validators.noStore)
        #expect(validators.conditionalHeaders == ["If-None-Match": "W/\"x\""])
        #expect(ResponseValidators(fields: [("Cache-Control", "private"), ("Cache-Control", "no-store")]).noStore)
        #expect(!ResponseValidators().canRevalidate)
    }
}
