import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Request sharing, per-caller cancellation, processors, progress and the async form.
@Suite struct ImageDownloaderTests {
    @Test func downloadsAndDecodesAnImage() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png, contentType: "image/png"))
            let result = try await downloader.downloadImage(with: server.url("/a.png"))
            #expect(result.image.pixelWidth == 16 && result.image.pixelHeight == 12)
            #expect(result.originalData == DownloaderKit.png)
            #expect(result.url == server.url("/a.png"))
            #expect(server.requests(for: "/a.png").first?.method == "GET")
        }
    }

    @Test func fiftyConcurrentCallersMakeOneRequest() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/shared.png", .held(DownloaderKit.png, gate: gate))
            let results = Recorder<DownloadResult>()
            var tasks: [DownloadTask] = []
            for _ in 0..<50 {
                let task = downloader.downloadImage(with: server.url("/shared.png")) { results.record($0) }
                tasks.append(try #require(task))
            }
            await gate.waitUntilWaiting(count: 1)
            #expect(Set(tasks.compactMap { $0.sessionTask.map(ObjectIdentifier.init) }).count == 1)
            #expect(Set(tasks.compactMap(\.cancelToken)).count == 50)
            gate.open()
            let all = await results.wait(for: 50)
            #expect(all.allSatisfy { (try? $0.get().image.pixelWidth) == 16 })
            #expect(server.requestCount(for: "/shared.png") == 1)
            #expect(downloader.sessionTaskCount == 0)
        }
    }

    @Test func cancellingOneCallerFailsOnlyThatCaller() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/one.png", .held(DownloaderKit.png, gate: gate))
            let first = Recorder<DownloadResult>(), second = Recorder<DownloadResult>(), third = Recorder<DownloadResult>()
            _ = downloader.downloadImage(with: server.url("/one.png")) { first.record($0) }
            let cancelled = try #require(downloader.downloadImage(with: server.url("/one.png")) { second.record($0) })
            _ = downloader.downloadImage(with: server.url("/one.png")) { third.record($0) }
            await gate.waitUntilWaiting(count: 1)

            cancelled.cancel()
            let error = try #require(await second.wait(for: 1).first?.error)
            #expect(error.isTaskCancelled)
            #expect(error.errorCode == 1003)
            #expect(cancelled.sessionTask?.isRunning == true)

            gate.open()
            #expect(try await first.wait(for: 1)[0].get().image.pixelWidth == 16)
            #expect(try await third.wait(for: 1)[0].get().image.pixelWidth == 16)
            #expect(second.values.count == 1)
            #expect(server.requestCount(for: "/one.png") == 1)
        }
    }

    @Test func lastCancelStopsTheRequestAndANewCallStartsAFreshOne() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/restart.png", [.held(DownloaderKit.png, gate: gate), .ok(DownloaderKit.png)])
            let results = Recorder<DownloadResult>()
            let a = try #require(downloader.downloadImage(with: server.url("/restart.png")) { results.record($0) })
            let b = try #require(downloader.downloadImage(with: server.url("/restart.png")) { results.record($0) })
            await gate.waitUntilWaiting(count: 1)
            let session = try #require(a.sessionTask)
            a.cancel()
            #expect(session.isRunning)
            b.cancel()
            #expect(!session.isRunning)
            #expect(await results.wait(for: 2).allSatisfy { $0.error?.isTaskCancelled == true })
            #expect(downloader.sessionTaskCount == 0)

            let again = try await downloader.downloadImage(with: server.url("/restart.png"))
            #expect(again.image.pixelWidth == 16)
            #expect(server.requestCount(for: "/restart.png") == 2)
            #expect(results.values.count == 2)
        }
    }

    @Test func cancelURLAndCancelAllFailEveryCaller() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/x.png", .held(DownloaderKit.png, gate: gate))
            server.route("/y.png", .held(DownloaderKit.png, gate: gate))
            let x = Recorder<DownloadResult>(), y = Recorder<DownloadResult>()
            for _ in 0..<3 { _ = downloader.downloadImage(with: server.url("/x.png")) { x.record($0) } }
            for _ in 0..<2 { _ = downloader.downloadImage(with: server.url("/y.png")) { y.record($0) } }
            await gate.waitUntilWaiting(count: 2)
            downloader.cancel(url: server.url("/x.png"))
            #expect(await x.wait(for: 3).allSatisfy { $0.error?.isTaskCancelled == true })
            #expect(y.values.isEmpty)
            downloader.cancelAll()
            #expect(await y.wait(for: 2).allSatisfy { $0.error?.isTaskCancelled == true })
            #expect(downloader.sessionTaskCount == 0)
        }
    }

    @Test func eachDistinctProcessorRunsOnce() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/p.png", .held(DownloaderKit.png, gate: gate))
            let a = CountingProcessor("a"), b = CountingProcessor("b"), aAgain = CountingProcessor("a")
            let results = Recorder<DownloadResult>()
            for processor in [a, a, b, aAgain, b, a] as [any ImageProcessor] {
                _ = downloader.downloadImage(with: server.url("/p.png"), options: [.processor(processor)]) { results.record($0) }
            }
            _ = downloader.downloadImage(with: server.url("/p.png")) { results.record($0) }
            await gate.waitUntilWaiting(count: 1)
            gate.open()
            let all = await results.wait(for: 7)
            #expect(all.allSatisfy { (try? $0.get()) != nil })
            #expect(a.runCount + aAgain.runCount == 1)
            #expect(b.runCount == 1)
            #expect(server.requestCount(for: "/p.png") == 1)
        }
    }

    @Test func bytesThatAreNoImageAreAProcessorErrorNamingWhy() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/text", .ok(Data("not an image".utf8)))
            await #expect {
                try await downloader.downloadImage(with: server.url("/text"))
            } throws: { error in
                guard case .processorError(reason: .unknownImageFormat(let header))? = error as? KingfisherError else { return false }
                return header == Data("not an image".utf8).prefix(header.count)
            }
        }
    }

    @Test func progressReportsBytesAndTotal() async throws {
        try await DownloaderKit.run { server, downloader in
            let body = DownloaderKit.bigPNG
            server.route("/big.png", .slow(body, chunkSize: 16 * 1024, interval: 0.001))
            let progress = Recorder<(Int64, Int64)>()
            _ = try await downloader.downloadImage(with: server.url("/big.png"), progressBlock: { progress.record(($0, $1)) })
            let values = progress.values
            #expect(values.count >= 2)
            #expect(values.allSatisfy { $0.1 == Int64(body.count) })
            #expect(zip(values, values.dropFirst()).allSatisfy { $0.0 < $1.0 })
            #expect(values.last?.0 == Int64(body.count))
        }
    }

    @Test func noProgressAfterTheCallerCancelled() async throws {
        try await DownloaderKit.run { server, downloader in
            let body = DownloaderKit.bigPNG
            server.route("/slow.png", .slow(body, chunkSize: 4 * 1024, interval: 0.002))
            let cancelledProgress = Recorder<Int64>(), cancelledResult = Recorder<DownloadResult>()
            // The other caller keeps the transfer and its progress going; both join synchronously,
            // before the first byte can arrive.
            let otherProgress = Recorder<Int64>(), otherResult = Recorder<DownloadResult>()
            _ = downloader.downloadImage(
                with: server.url("/slow.png"),
                progressBlock: { received, _ in otherProgress.record(received) },
                completionHandler: { otherResult.record($0) })
            let holder = LockedBox<DownloadTask?>(nil)
            let started = downloader.downloadImage(
                with: server.url("/slow.png"),
                progressBlock: { received, _ in
                    cancelledProgress.record(received)
                    holder.withLock { $0 }?.cancel()
                },
                completionHandler: { cancelledResult.record($0) })
            let task = try #require(started)
            holder.withLock { $0 = task }
            #expect(task.sessionTask?.callerCount == 2)
            let other = try await otherResult.wait(for: 1)[0].get()
            #expect(other.originalData == body)
            #expect(otherProgress.values.count > 3)
            #expect(cancelledProgress.values.count == 1)
            #expect(cancelledResult.values.count == 1)
            #expect(cancelledResult.values.first?.error?.isTaskCancelled == true)
        }
    }

    @Test func asyncFormHonoursSwiftTaskCancellation() async throws {
        try await DownloaderKit.run { server, downloader in
            let gate = TestGate()
            server.route("/async.png", .held(DownloaderKit.png, gate: gate))
            let waiting = Task {
                try await downloader.downloadImage(with: server.url("/async.png"))
            }
            let staying = Task {
                try await downloader.downloadImage(with: server.url("/async.png"))
            }
            await gate.waitUntilWaiting(count: 1)
            waiting.cancel()
            await #expect { try await waiting.value } throws: { ($0 as? KingfisherError)?.isTaskCancelled == true }
            gate.open()
            let stayed = try await staying.value
            #expect(stayed.image.pixelWidth == 16)
            #expect(server.requestCount(for: "/async.png") == 1)

            let preCancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await downloader.downloadImage(with: server.url("/async.png"))
            }
            await #expect { try await preCancelled.value } throws: { ($0 as? KingfisherError)?.errorCode == 1005 }
        }
    }

    @Test func queuedRequestsStartByPriority() async throws {
        try await DownloaderKit.run(maxConnectionsPerHost: 1) { server, downloader in
            let gate = TestGate()
            server.route("/block.png", .held(DownloaderKit.png, gate: gate))
            for path in ["/low.png", "/mid.png", "/high.png", "/mid2.png"] { server.route(path, .ok(DownloaderKit.png)) }
            let order = Recorder<String>()
            _ = downloader.downloadImage(with: server.url("/block.png")) { _ in order.record("block") }
            await gate.waitUntilWaiting(count: 1)
            for (path, priority) in [("/low.png", 0.1), ("/mid.png", 0.5), ("/high.png", 0.9), ("/mid2.png", 0.5)] as [(String, Float)] {
                _ = downloader.downloadImage(with: server.url(path), options: [.downloadPriority(priority)]) { _ in order.record(path) }
            }
            // The four transfers reach the scheduler on their own tasks; wait until all are queued.
            while downloader.scheduler.load(host: "127.0.0.1").waiting < 4 { await Task.yield() }
            gate.open()
            #expect(await order.wait(for: 5) == ["block", "/high.png", "/mid.png", "/mid2.png", "/low.png"])
        }
    }

    @Test func shutDownDownloaderFailsNewDownloadsAndDeinitWithoutShutdownIsSafe() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/a.png", .ok(DownloaderKit.png))
        do {
            // Released without shutdown(): the client is shut down in the background.
            let temporary = ImageDownloader(name: "temporary")
            _ = try await temporary.downloadImage(with: server.url("/a.png"))
        }
        let downloader = ImageDownloader(name: "closing")
        try await downloader.shutdown()
        try await downloader.shutdown()
        await #expect(throws: KingfisherError.self) {
            try await downloader.downloadImage(with: server.url("/a.png"))
        }
        try await server.shutdown()
    }
}
