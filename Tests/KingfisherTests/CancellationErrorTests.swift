import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// A cancellation names what it stopped: `.taskCancelled(task:token:)` carries the transfer
/// (whose `originalRequest` is the request sent) and the caller's token, whichever API started it.
@Suite struct CancellationErrorTests {
    /// The transfer and token of a `.taskCancelled` error, or `nil` for any other error.
    static func cancelled(_ error: KingfisherError?) -> (task: SessionDataTask, token: SessionDataTask.CancelToken)? {
        guard case .requestError(reason: .taskCancelled(let task, let token))? = error else { return nil }
        return (task, token)
    }

    /// Adds `?sent=1` to every request, so a test can tell the request sent from the one asked for.
    static let marking = AnyModifier { request in
        var request = request
        request.url = request.url.flatMap { URL(string: $0.absoluteString + "?sent=1") }
        return request
    }

    @Test func aManagerCancellationNamesTheDownloadItStopped() async throws {
        try await ManagerKit.run { server, manager, _ in
            let gate = TestGate()
            server.route("/held.png", .held(DownloaderKit.png, gate: gate))
            defer { gate.open() }
            let url = server.url("/held.png")
            let results = Recorder<Result<RetrieveImageResult, KingfisherError>>()
            let task = try #require(manager.retrieveImage(
                with: .network(url), options: [.requestModifier(Self.marking)]) { results.record($0) })
            await server.waitUntilRequestCount(for: "/held.png", reaches: 1)
            let transfer = try #require(task.sessionTask)
            let token = try #require(task.cancelToken)
            task.cancel()
            let error = try #require(await results.wait(for: 1)[0].error)
            let named = try #require(Self.cancelled(error))
            #expect(named.task === transfer)
            #expect(named.token == token)
            #expect(named.task.originalRequest?.url?.absoluteString == url.absoluteString + "?sent=1")
            #expect(error.errorCode == 1003)
            #expect(results.values.count == 1)
        }
    }

    @Test func anAlternativeSourcesCancellationNamesItsDownload() async throws {
        try await ManagerKit.run { server, manager, _ in
            let gate = TestGate()
            server.route("/missing.png", .status(404))
            server.route("/backup.png", .held(DownloaderKit.png, gate: gate))
            defer { gate.open() }
            let backup = server.url("/backup.png")
            let results = Recorder<Result<RetrieveImageResult, KingfisherError>>()
            let task = try #require(manager.retrieveImage(
                with: .network(server.url("/missing.png")), options: [.alternativeSources([.network(backup)])]
            ) { results.record($0) })
            await server.waitUntilRequestCount(for: "/backup.png", reaches: 1)
            task.cancel()
            let named = try #require(Self.cancelled(await results.wait(for: 1)[0].error))
            #expect(named.task.originalRequest?.url == backup)
        }
    }

    @Test func aCancellationDuringACacheReadNamesTheSourcesURL() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/read.png")
            let url = try #require(source.url)
            _ = try await ManagerKit.retrieve(manager, source, [.waitForCache]).get()
            cache.clearMemoryCache()
            // The disk read queues behind a write the test holds, so the cancel lands during it.
            let held = DispatchSemaphore(value: 0)
            cache.enqueueDiskWrite(for: url.cacheKey) { held.wait() }
            let results = Recorder<Result<RetrieveImageResult, KingfisherError>>()
            let task = try #require(manager.retrieveImage(with: source) { results.record($0) })
            #expect(task.sessionTask == nil)
            task.cancel()
            held.signal()
            let named = try #require(Self.cancelled(await results.wait(for: 1)[0].error))
            #expect(named.task.originalRequest?.url == url)
            #expect(!named.task.isRunning)
            #expect(server.requestCount(for: "/read.png") == 1)
        }
    }

    @Test func aDirectDownloadCancelledBeforeItsTransferNamesItsURL() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/late.png", .ok(DownloaderKit.png))
            let url = server.url("/late.png")
            let release = TaskGate()
            let results = Recorder<DownloadResult>()
            // An async modifier that waits: the caller has no transfer yet when it is cancelled.
            let modifier = AsyncGatedModifier(gate: release)
            let task = try #require(downloader.downloadImage(with: url, options: [.requestModifier(modifier)]) {
                results.record($0)
            })
            _ = await release.arrivals.wait(for: 1)
            task.cancel()
            let named = try #require(Self.cancelled(await results.wait(for: 1)[0].error))
            #expect(named.task.originalRequest?.url == url)
            release.open()
            #expect(server.requestCount(for: "/late.png") == 0)
        }
    }

    @Test @MainActor func setImageAndTheBuilderReportTheCancelledDownload() async throws {
        try await ViewKit.run { env in
            let gate = TestGate()
            env.server.route("/view.png", .held(ViewKit.png(0), gate: gate))
            defer { gate.open() }
            let url = env.server.url("/view.png")
            let view = TestImageView()
            let fromSetImage = Recorder<SetResult>()
            let task = try #require(view.kf.setImage(with: url, options: env.options) { fromSetImage.record($0) })
            await env.server.waitUntilRequestCount(for: "/view.png", reaches: 1)
            task.cancel()
            let named = try #require(Self.cancelled(await fromSetImage.wait(for: 1)[0].error))
            #expect(named.task.originalRequest?.url == url)

            let builderView = TestImageView()
            let fromBuilder = Recorder<SetResult>()
            let builderTask = try #require(KF.url(url).targetCache(env.cache).downloader(env.downloader)
                .onFailure { fromBuilder.record(.failure($0)) }
                .set(to: builderView))
            await env.server.waitUntilRequestCount(for: "/view.png", reaches: 2)
            builderTask.cancel()
            let builderNamed = try #require(Self.cancelled(await fromBuilder.wait(for: 1)[0].error))
            #expect(builderNamed.task.originalRequest?.url == url)
        }
    }
}

/// An async request modifier that records its call and waits for a gate before answering.
struct AsyncGatedModifier: AsyncImageDownloadRequestModifier {
    let gate: TaskGate
    func modified(for request: URLRequest) async -> URLRequest? {
        await gate.wait()
        return request
    }
}
