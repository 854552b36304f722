import Foundation
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

@Suite struct KingfisherManagerQueueTests {
    @Test func dispatchCallbackQueueRunsOnThatQueue() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/q.png")
            let queue = DispatchQueue(label: "kf.test.callback")
            queue.setSpecific(key: queueMark, value: true)
            for _ in 0..<2 {   // a download, then a memory hit
                let onQueue = await withCheckedContinuation { continuation in
                    manager.retrieveImage(with: source, options: [.callbackQueue(.dispatch(queue))]) { _ in
                        continuation.resume(returning: DispatchQueue.getSpecific(key: queueMark) == true)
                    }
                }
                #expect(onQueue)
            }
        }
    }

    @Test func processingQueueRunsTheProcessor() async throws {
        try await ManagerKit.run { server, manager, _ in
            let queue = DispatchQueue(label: "kf.test.processing")
            queue.setSpecific(key: queueMark, value: true)
            let processor = GatedProcessor("on-queue")
            processor.latch.open()
            let source = ManagerKit.serve(server, "/p.png")
            _ = try await manager.retrieveImage(with: source, options: [.processor(processor), .processingQueue(.dispatch(queue))])
            let provider = RawImageDataProvider(data: DownloaderKit.png, cacheKey: "queued")
            _ = try await manager.retrieveImage(with: .provider(provider), options: [.processor(processor), .processingQueue(.dispatch(queue))])
            #expect(processor.onQueue.withLock { $0 } == [true, true])
        }
    }

    /// The main queue is held for the whole retrieval (or never serviced at all): `.untouch`,
    /// the default, still completes.
    @Test func untouchNeedsNoMainQueue() async throws {
        try await ManagerKit.run { server, manager, _ in
            let source = ManagerKit.serve(server, "/main.png")
            let release = DispatchSemaphore(value: 0)
            DispatchQueue.main.async { _ = release.wait(timeout: .now() + 20) }
            defer { release.signal() }
            let ranOnMain = await withCheckedContinuation { continuation in
                manager.retrieveImage(with: source) { result in
                    continuation.resume(returning: (Thread.isMainThread, result.cacheType))
                }
            }
            #expect(ranOnMain.0 == false)
            #expect(ranOnMain.1 == CacheType.none)
            let got1 = try await manager.retrieveImage(with: source)
            #expect(got1.cacheType == .memory)
        }
    }
}
