import Foundation
import HummingbirdTesting
import Kingfisher
import KingfisherSynchronization
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// Several sizes of one source asked for at once: one fetch, each decoded size decoded once, and
/// the same bytes as when each size is asked for alone.
@Suite("kf serve shared decodes")
struct SharedDecodeTests {
    static let image = ServeKit.gradient(width: 40, height: 30, alpha: false)

    /// Waits, yielding, until `source` has `count` jobs.
    static func waitForJobs(_ decodes: SharedDecodes, _ source: String, count: Int) async {
        while decodes.jobCount(of: source) < count { await Task.yield() }
    }

    @Test("a second job waits for the first one's decode, then takes the image it kept")
    func turnsAndKeeping() async throws {
        let decodes = SharedDecodes(budget: 1 << 20)
        let first = await decodes.enter("s")
        let second = Task { await decodes.enter("s") }
        await Self.waitForJobs(decodes, "s", count: 2)
        first.keep(Self.image, width: 40, height: 30)
        #expect(decodes.keptBytes == 40 * 30 * 4)
        first.decoded()
        let ticket = await second.value
        let kept = try #require(ticket.image(width: 40, height: 30))
        #expect(kept.pixelWidth == 40 && kept.firstFrame.pixels == Self.image.firstFrame.pixels)
        #expect(ticket.image(width: 20, height: 15) == nil)
        #expect(decodes.reuseCount == 1)
        ticket.leave()
        #expect(decodes.keptBytes == 40 * 30 * 4)
        first.leave()
        first.leave()
        #expect(decodes.keptBytes == 0)
        #expect(decodes.jobCount(of: "s") == 0)
    }

    @Test("a job alone keeps nothing, and nothing past the budget is kept")
    func aloneAndBudget() async throws {
        let decodes = SharedDecodes(budget: 40 * 30 * 4 - 1)
        let alone = await decodes.enter("a")
        alone.keep(Self.image, width: 40, height: 30)
        #expect(decodes.keptBytes == 0)
        alone.leave()
        let first = await decodes.enter("b")
        let second = Task { await decodes.enter("b") }
        await Self.waitForJobs(decodes, "b", count: 2)
        first.keep(Self.image, width: 40, height: 30)
        #expect(decodes.keptBytes == 0)
        first.leave()
        let ticket = await second.value
        #expect(ticket.image(width: 40, height: 30) == nil)
        ticket.leave()
        #expect(decodes.jobCount(of: "b") == 0)
    }

    @Test("five widths of one thumbor source at once: one fetch, shared decodes, the bytes of each width alone")
    func fiveWidths() async throws {
        let source = try ServeKit.gradient(width: 256, height: 192, alpha: false).encoded(as: .JPEG)
        let widths = [200, 160, 120, 80, 40]
        let mount = ThumborFiltersServingTests.mount()
        let alone = Mutex<[Int: Data]>([:])
        try await ServeKit.run(configure: { $0.mounts = [mount] }) { harness in
            harness.origin.route("/photo.jpg", .ok(source))
            let origin = try ThumborFiltersServingTests.origin(harness)
            for width in widths {
                let response = try await harness.get("/t/unsafe/fit-in/\(width)x\(width)/\(origin)/photo.jpg")
                #expect(response.status == .ok)
                alone.withLock { $0[width] = response.data }
            }
        }
        let expected = alone.withLock { $0 }
        let gate = TestGate()
        try await ServeKit.run(configure: { $0.mounts = [mount] }) { harness in
            harness.origin.route("/photo.jpg", .held(source, gate: gate))
            let origin = try ThumborFiltersServingTests.origin(harness)
            let key = harness.origin.url("/photo.jpg").absoluteString
            try await withThrowingTaskGroup(of: (Int, HummingbirdTesting.TestResponse).self) { group in
                for width in widths {
                    group.addTask { (width, try await harness.get("/t/unsafe/fit-in/\(width)x\(width)/\(origin)/photo.jpg")) }
                }
                // Every job has joined the source while the first one's fetch is held at the origin.
                await harness.origin.waitUntilRequestCount(for: "/photo.jpg", reaches: 1)
                await Self.waitForJobs(harness.server.pipeline.decodes, key, count: widths.count)
                gate.open()
                for try await (width, response) in group {
                    #expect(response.status == .ok)
                    let image = try KFCrossPlatformImage(data: response.data)
                    #expect(image.pixelWidth == width, "width \(width)")
                    #expect(response.data == expected[width], "width \(width) differs from its answer alone")
                }
            }
            #expect(harness.origin.requestCount(for: "/photo.jpg") == 1)
            // 200 and 160 read the full decode, 120 and 80 the half one, 40 the quarter one: two reuses.
            #expect(harness.server.pipeline.decodes.reuseCount == 2)
            #expect(harness.server.pipeline.decodes.keptBytes == 0)
        }
    }
}
