import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve outlives its cache folder")
struct FleetCacheLossTests {
    /// The cache folder `kf serve --cache-dir DIR` keeps its files in.
    static func cacheFolder(_ serve: FleetServe) -> URL {
        serve.cacheFolder.appendingPathComponent("com.onevcat.Kingfisher.ImageCache.serve")
    }

    /// The cache files (not the `.kf` bookkeeping) in the cache folder; none when it is gone.
    static func cachedFiles(_ serve: FleetServe) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cacheFolder(serve).path)) ?? []
        return names.filter { !$0.hasPrefix(".") }
    }

    @Test("the cache folder deleted while serving: every answer is 200, images are fetched again and stored again")
    func deletedCacheFolder() async throws {
        // No rendition memory, so every answer after the first comes from the disk cache or the origin.
        try await FleetServe.run(["--memory-mb", "0"]) { serve, origin in
            for name in ["a", "b", "c", "d"] { origin.route("/\(name).jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg")) }
            let a = serve.path(origin.url("/a.jpg"))
            #expect(try await serve.get(a).status == 200)
            #expect(try await serve.get(a).status == 200)
            #expect(origin.requestCount(for: "/a.jpg") == 1, "the second answer came from the disk cache")
            #expect(!Self.cachedFiles(serve).isEmpty)

            // The whole --cache-dir folder goes.
            try FileManager.default.removeItem(at: serve.cacheFolder)
            #expect(try await serve.get(a).status == 200)
            #expect(origin.requestCount(for: "/a.jpg") == 2, "fetched again: the cached copy is gone")
            #expect(try await serve.get(serve.path(origin.url("/a.jpg"), spec: "downsample(9x9)")).status == 200)
            let b = serve.path(origin.url("/b.jpg"))
            #expect(try await serve.get(b).status == 200)
            #expect(!Self.cachedFiles(serve).isEmpty, "stored again in a new cache folder")
            #expect(try await serve.get(b).status == 200)
            #expect(origin.requestCount(for: "/b.jpg") == 1, "the stored copy is used again")

            // Only the cache folder itself goes, its bookkeeping with it.
            try FileManager.default.removeItem(at: Self.cacheFolder(serve))
            let c = serve.path(origin.url("/c.jpg"))
            #expect(try await serve.get(b).status == 200)
            #expect(try await serve.get(c).status == 200)
            #expect(try await serve.get(c).status == 200)
            #expect(origin.requestCount(for: "/b.jpg") == 2 && origin.requestCount(for: "/c.jpg") == 1)

            // Deleted while requests are in flight: all answered 200.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<24 {
                    let path = serve.path(origin.url("/" + ["a", "b", "c", "d"][index % 4] + ".jpg"), spec: "downsample(\(10 + index)x\(10 + index))")
                    group.addTask { try await serve.get(path).status }
                    if index == 8 { try? FileManager.default.removeItem(at: serve.cacheFolder) }
                }
                for try await status in group { #expect(status == 200) }
            }
            let d = serve.path(origin.url("/d.jpg"))
            #expect(try await serve.get(d).status == 200)
            #expect(try await serve.get(d).status == 200)
            #expect(!Self.cachedFiles(serve).isEmpty)

            let failures = serve.output.lines.filter { $0.contains(" status=5") || $0.contains("error") || $0.contains("warning") }
            #expect(failures.isEmpty, "\(failures)")
            let metrics = try await serve.get("/metrics").text
            #expect(!metrics.contains(#"status="5"#))
        }
    }

    @Test("two replicas sharing a cache folder that is deleted: both answer 200 and share what they store again")
    func deletedSharedCacheFolder() async throws {
        try await FleetServe.run(["--memory-mb", "0", "--instance", "one"]) { one, origin in
            let two = try await FleetServe.start(["--memory-mb", "0", "--instance", "two"], cacheFolder: one.cacheFolder)
            do {
                for name in ["x", "y"] { origin.route("/\(name).jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg")) }
                let x = one.path(origin.url("/x.jpg"))
                #expect(try await one.get(x).status == 200)
                #expect(try await two.get(x).status == 200)
                #expect(origin.requestCount(for: "/x.jpg") == 1, "the second replica read the first one's copy")

                try FileManager.default.removeItem(at: one.cacheFolder)
                #expect(try await two.get(x).status == 200)
                #expect(origin.requestCount(for: "/x.jpg") == 2)
                #expect(try await one.get(x).status == 200)
                #expect(origin.requestCount(for: "/x.jpg") == 2, "the first replica read what the second one stored again")
                let y = one.path(origin.url("/y.jpg"))
                #expect(try await one.get(y).status == 200)
                #expect(try await two.get(y).status == 200)
                #expect(origin.requestCount(for: "/y.jpg") == 1)
                let failures = (one.output.lines + two.output.lines).filter { $0.contains(" status=5") || $0.contains("warning") }
                #expect(failures.isEmpty, "\(failures)")
            } catch {
                await two.finish()
                throw error
            }
            await two.finish()
        }
    }
}
