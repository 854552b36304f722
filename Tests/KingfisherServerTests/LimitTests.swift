import Foundation
import Hummingbird
import HummingbirdTesting
import Kingfisher
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve limits")
struct LimitTests {
    @Test("a source over the byte limit is 413")
    func sourceBytes() async throws {
        try await ServeKit.run(configure: { $0.limits.maxSourceBytes = 100 }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            harness.origin.route("/chunked.jpg", .chunked(ServeKit.jpeg, chunkSize: 64))
            let declared = try await harness.get(harness.path("/a.jpg"))
            #expect(declared.status == .contentTooLarge)
            #expect(declared.text.contains("over the limit of 100 bytes"))
            let streamed = try await harness.get(harness.path("/chunked.jpg"))
            #expect(streamed.status == .contentTooLarge)
        }
    }

    @Test("a frame over the pixel limit is 422")
    func pixels() async throws {
        try await ServeKit.run(configure: { $0.limits.maxPixelsPerFrame = 1000 }) { harness in
            harness.origin.route("/a.jpg", .ok(ServeKit.jpeg))
            let response = try await harness.get(harness.path("/a.jpg", spec: "downsample(8x8)"))
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("64"), "names the size: \(response.text)")
        }
    }

    @Test("a truncated or non-image source is 422 naming the decoder's reason, not a processor")
    func undecodable() async throws {
        try await ServeKit.run { harness in
            let whole = try ServeKit.gradient(width: 256, height: 192, alpha: false).encoded(as: .JPEG)
            harness.origin.route("/cut.jpg", .ok(whole.prefix(whole.count * 2 / 3)))
            harness.origin.route("/page.jpg", .ok(Data("<!doctype html><p>moved</p>".utf8)))
            for spec in ["downsample(8x8)", "downsample(8x8)|>blur(1)"] {
                let cut = try await harness.get(harness.path("/cut.jpg", spec: spec))
                #expect(cut.status == .unprocessableContent)
                #expect(cut.text.contains("JPEG source could not be decoded") && cut.text.contains("truncated"), "\(cut.text)")
                #expect(!cut.text.contains("kfserve."), "\(cut.text)")
                let page = try await harness.get(harness.path("/page.jpg", spec: spec))
                #expect(page.status == .unprocessableContent)
                #expect(page.text.contains("not an image in a format the server decodes"), "\(page.text)")
            }
        }
    }

    @Test("an animation over the frame limit is 422")
    func frames() async throws {
        let frames = (0..<3).compactMap { index in
            ImageFrame(width: 4, height: 4, pixels: [UInt8](repeating: UInt8(index * 80), count: 64), duration: 0.1)
        }
        let gif = try #require(KFCrossPlatformImage(frames: frames)).encoded(as: .GIF)
        try await ServeKit.run(configure: { $0.limits.maxFrames = 2 }) { harness in
            harness.origin.route("/a.gif", .ok(gif))
            let response = try await harness.get(harness.path("/a.gif", format: .gif))
            #expect(response.status == .unprocessableContent)
            #expect(response.text.contains("frame"), "\(response.text)")
        }
    }

    @Test("an origin that sends nothing is 504 after the upstream timeout")
    func upstreamTimeout() async throws {
        try await ServeKit.run(configure: { $0.limits.upstreamTimeout = 0.3 }) { harness in
            harness.origin.route("/never.jpg", .never())
            let response = try await harness.get(harness.path("/never.jpg"))
            #expect(response.status == .gatewayTimeout)
            #expect(response.text.contains("the origin sent nothing"))
        }
    }

    @Test("a job over the processing time limit is 504")
    func processingTimeout() async throws {
        let gate = TestGate()
        try await ServeKit.run(configure: { $0.limits.processingTimeout = 0.3 }) { harness in
            harness.origin.route("/held.jpg", .held(ServeKit.jpeg, gate: gate))
            let response = try await harness.get(harness.path("/held.jpg"))
            #expect(response.status == .gatewayTimeout)
            #expect(response.text.contains("took longer than 0.3 s"))
            gate.open()
        }
    }

    @Test("jobs over the concurrency limit wait in line; past the line they are 503 with Retry-After")
    func queue() async throws {
        let gate = TestGate()
        try await ServeKit.run(configure: { $0.limits.maxConcurrentJobs = 1; $0.limits.maxQueuedJobs = 1 }) { harness in
            for name in ["/1.jpg", "/2.jpg", "/3.jpg"] { harness.origin.route(name, .held(ServeKit.jpeg, gate: gate)) }
            let limiter = harness.server.pipeline.limiter
            async let first = harness.get(harness.path("/1.jpg"))
            await harness.origin.waitUntilRequestCount(for: "/1.jpg", reaches: 1)
            async let second = harness.get(harness.path("/2.jpg"))
            while limiter.waitingCount < 1 { try await Task.sleep(for: .milliseconds(1)) }
            let third = try await harness.get(harness.path("/3.jpg"))
            #expect(third.status == .serviceUnavailable)
            #expect(third.headers[.retryAfter] == "1")
            #expect(third.text.contains("too many images"))
            #expect(harness.origin.requestCount(for: "/2.jpg") == 0)
            #expect(harness.origin.requestCount(for: "/3.jpg") == 0)
            gate.open()
            let (one, two) = try await (first, second)
            #expect(one.status == .ok)
            #expect(two.status == .ok)
            #expect(limiter.runningCount == 0)
        }
    }

    @Test("concurrent identical requests fetch the origin once and get the same bytes")
    func sharedJob() async throws {
        let gate = TestGate()
        try await ServeKit.run { harness in
            harness.origin.route("/same.jpg", .held(ServeKit.jpeg, gate: gate))
            let path = harness.path("/same.jpg", spec: "downsample(16x16)")
            try await withThrowingTaskGroup(of: HummingbirdTesting.TestResponse.self) { group in
                for _ in 0..<8 { group.addTask { try await harness.get(path) } }
                await harness.origin.waitUntilRequestCount(for: "/same.jpg", reaches: 1)
                gate.open()
                var etags = Set<String>()
                var bodies = Set<Data>()
                for try await response in group {
                    #expect(response.status == .ok)
                    etags.insert(response.headers[.eTag] ?? "")
                    bodies.insert(response.data)
                }
                #expect(etags.count == 1)
                #expect(bodies.count == 1)
            }
            #expect(harness.origin.requestCount(for: "/same.jpg") == 1)
        }
    }
}
