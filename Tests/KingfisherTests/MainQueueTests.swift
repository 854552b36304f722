import Foundation
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// "Am I on the main queue?" asked the one way everywhere: on the main actor under an async
/// `main` (as here, where a worker thread drains the main queue), `.mainCurrentOrAsync` runs inline.
@Suite struct MainQueueTests {
    @Test @MainActor func theMainActorIsTheMainQueue() async {
        #expect(MainQueue.isCurrent)
        let ran = Mutex(false)
        CallbackQueue.mainCurrentOrAsync.execute { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    @Test func aWorkerQueueIsNotTheMainQueue() async {
        let queue = DispatchQueue(label: "kf.test.worker")
        let answer = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(!answer)
        // Off the main queue, `.mainCurrentOrAsync` hands the block to the main queue.
        let onMain = await withCheckedContinuation { continuation in
            queue.async {
                CallbackQueue.mainCurrentOrAsync.execute { continuation.resume(returning: MainQueue.isCurrent) }
            }
        }
        #expect(onMain)
    }

    @Test @MainActor func aLocalFileOnTheMainQueueAnswersBeforeReturning() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-main-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("a.png")
        try DownloaderKit.png.write(to: file)
        let provider = LocalFileImageDataProvider(fileURL: file, loadingQueue: .mainCurrentOrAsync)
        let answered = Mutex<Data?>(nil)
        provider.data { result in answered.withLock { $0 = try? result.get() } }
        #expect(answered.withLock { $0 } == DownloaderKit.png)
    }

    @Test func localFileKeysStartAtTheNearestBundle() throws {
        let inApp = URL(fileURLWithPath: "/opt/Demo.app/Resources/Other.appex/icons/a.png")
        #expect(inApp.cacheKey == "kingfisher.local.cacheKey/Other.appex/icons/a.png")
        #expect(URL(fileURLWithPath: "/opt/Demo.app/a.png").cacheKey == "kingfisher.local.cacheKey/Demo.app/a.png")
        let withQuery = try #require(URL(string: "file:///opt/Demo.app/a.png?v=2"))
        #expect(withQuery.cacheKey == "kingfisher.local.cacheKey/Demo.app/a.png?v=2")
        #expect(LocalFileImageDataProvider(fileURL: inApp).cacheKey == inApp.cacheKey)
        // A name that only contains ".app" is not a bundle: every component stays, the root "/"
        // included, as Kingfisher joins them.
        #expect(URL(fileURLWithPath: "/srv/my.apps/a.png").cacheKey == "kingfisher.local.cacheKey///srv/my.apps/a.png")
    }
}
