import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Kingfisher
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import KingfisherServer

@Suite("kf serve HTTP caching")
struct CachingTests {
    @Test("If-None-Match with the ETag is 304 without a body; another tag is 200")
    func notModified() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let path = harness.path("/a.jpg", spec: "downsample(20x20)", format: .auto)
            let first = try await harness.get(path)
            let etag = try #require(first.headers[.eTag])
            let again = try await harness.get(path, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            #expect(again.headers[.eTag] == etag)
            #expect(again.headers[.cacheControl] == "public, max-age=600")
            #expect(again.headers[.vary] == "Accept")
            let listed = try await harness.get(path, headers: [.ifNoneMatch: "\"nope\", W/\(etag)"])
            #expect(listed.status == .notModified)
            #expect(try await harness.get(path, headers: [.ifNoneMatch: "*"]).status == .notModified)
            let other = try await harness.get(path, headers: [.ifNoneMatch: "\"nope\""])
            #expect(other.status == .ok)
            #expect(other.data == first.data)
            #expect(harness.origin.requestCount(for: "/a.jpg") == 1)
        }
    }

    @Test("the ETag differs by processor and format, and is the same from memory and from disk")
    func etags() async throws {
        try await ServeKit.run { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let small = try await harness.get(harness.path("/a.jpg", spec: "downsample(20x20)"))
            let smaller = try await harness.get(harness.path("/a.jpg", spec: "downsample(10x10)"))
            let jpeg = try await harness.get(harness.path("/a.jpg", spec: "downsample(20x20)", format: .jpeg))
            #expect(Set([small.headers[.eTag], smaller.headers[.eTag], jpeg.headers[.eTag]]).count == 3)

            // A second server on the same cache has no rendition in memory: it reads the disk.
            let twin = ImageServer(configuration: harness.server.configuration, manager: harness.server.manager, logger: harness.server.logger)
            let source = harness.origin.url("/a.jpg")
            let (rendition, tier) = try await twin.pipeline.rendition(
                source: source, processor: DownsamplingImageProcessor(size: CGSize(width: 20, height: 20)),
                rendering: OutputFormat.png.rendering(accept: nil), vet: {})
            #expect(tier == .disk)
            #expect(rendition.etag == small.headers[.eTag])
            #expect(rendition.bytes == small.data)
            // The original was fetched for the first rendition and kept at the second; the third
            // was made from the kept copy.
            #expect(harness.origin.requestCount(for: "/a.jpg") == 2)
        }
    }

    @Test("an expired rendition is revalidated with the origin: a 304 serves the disk's bytes, no refetch")
    func revalidation() async throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let clock = CacheClock { now.withLock { $0 } }
        try await ServeKit.run(clock: clock) { harness in
            harness.origin.route("/r.jpg", [
                KingfisherTestServer.TestResponse.ok(ServeKit.jpeg).withHeaders([("ETag", "\"o1\""), ("Cache-Control", "max-age=60")]),
                KingfisherTestServer.TestResponse.status(304).withHeaders([("ETag", "\"o1\"")]),
            ])
            let first = try await harness.get(harness.path("/r.jpg", spec: "downsample(16x16)"))
            #expect(first.status == .ok)

            // Fresh servers on the same cache (no rendition in memory), the manager's memory cleared.
            func renderAgain() async throws -> (Rendition, CacheTier) {
                harness.server.manager.cache.clearMemoryCache()
                let twin = ImageServer(
                    configuration: harness.server.configuration, manager: harness.server.manager, logger: harness.server.logger)
                return try await twin.pipeline.rendition(
                    source: harness.origin.url("/r.jpg"), processor: DownsamplingImageProcessor(size: CGSize(width: 16, height: 16)),
                    rendering: OutputFormat.png.rendering(accept: nil), vet: {})
            }
            let fresh = try await renderAgain()
            #expect(fresh.1 == .disk)
            #expect(harness.origin.requestCount(for: "/r.jpg") == 1)

            now.withLock { $0.addTimeInterval(61) }
            let revalidated = try await renderAgain()
            #expect(revalidated.1 == .revalidated)
            #expect(revalidated.0.bytes == first.data)
            #expect(revalidated.0.etag == first.headers[.eTag])
            let requests = harness.origin.requests(for: "/r.jpg")
            #expect(requests.count == 2)
            #expect(requests.last?.header("If-None-Match") == "\"o1\"")

            let again = try await renderAgain()
            #expect(again.1 == .disk)
            #expect(harness.origin.requestCount(for: "/r.jpg") == 2)
        }
    }

    @Test("an origin's max-age=0 makes every later miss in memory a revalidation")
    func maxAgeZero() async throws {
        // The disk's clock stands still until the test moves it, so the entry expires exactly then.
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let clock = CacheClock { now.withLock { $0 } }
        try await ServeKit.run(clock: clock) { harness in
            harness.origin.route("/z.jpg", [
                KingfisherTestServer.TestResponse.ok(ServeKit.jpeg).withHeaders([("ETag", "\"z\""), ("Cache-Control", "max-age=0")]),
                KingfisherTestServer.TestResponse.status(304).withHeaders([("ETag", "\"z\"")]),
            ])
            let first = try await harness.get(harness.path("/z.jpg"))
            #expect(first.status == .ok)
            now.withLock { $0.addTimeInterval(1) }
            harness.server.manager.cache.clearMemoryCache()
            let twin = ImageServer(configuration: harness.server.configuration, manager: harness.server.manager, logger: harness.server.logger)
            let (rendition, tier) = try await twin.pipeline.rendition(
                source: harness.origin.url("/z.jpg"), processor: DefaultImageProcessor.default,
                rendering: OutputFormat.png.rendering(accept: nil), vet: {})
            #expect(tier == .revalidated)
            #expect(rendition.bytes == first.data)
            #expect(harness.origin.requests(for: "/z.jpg").last?.header("If-None-Match") == "\"z\"")
        }
    }

    @Test("the rendition memory keeps the most recently used within its byte limit")
    func memoryLimit() {
        let cache = RenditionMemoryCache(limit: 250)
        let a = Rendition(bytes: Data(repeating: 1, count: 100), key: "a")
        let b = Rendition(bytes: Data(repeating: 2, count: 100), key: "b")
        let c = Rendition(bytes: Data(repeating: 3, count: 100), key: "c")
        cache.store(a, forKey: "a")
        cache.store(b, forKey: "b")
        #expect(cache.value(forKey: "a")?.etag == a.etag)
        cache.store(c, forKey: "c")
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") != nil)
        #expect(cache.value(forKey: "c") != nil)
        #expect(cache.totalBytes == 200)
        cache.store(Rendition(bytes: Data(count: 300), key: "big"), forKey: "big")
        #expect(cache.value(forKey: "big") == nil)
        #expect(cache.totalBytes == 200)
    }
}
