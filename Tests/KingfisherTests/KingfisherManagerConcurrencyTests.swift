import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// Holds synchronous code (a serializer or processor on an I/O thread) until the test opens it.
final class BlockingLatch: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let entries = Recorder<Int>()
    private let opened = Mutex(false)

    /// Waits until ``open()``; the 20 s limit only keeps a failing test from hanging.
    func block() {
        entries.record(1)
        if opened.withLock({ $0 }) { return }
        _ = semaphore.wait(timeout: .now() + 20)
        semaphore.signal()
    }

    /// Returns once `count` callers reached ``block()``.
    func waitUntilEntered(_ count: Int) async { _ = await entries.wait(for: count) }

    /// Lets every blocked and later caller through.
    func open() {
        opened.withLock { $0 = true }
        semaphore.signal()
    }

    var enteredCount: Int { entries.values.count }
}

/// A serializer that counts decodes and holds them on a latch.
final class CountingSerializer: CacheSerializer {
    let latch = BlockingLatch()
    private let decodes = Atomic<Int>(0)
    var decodeCount: Int { decodes.load(ordering: .acquiring) }

    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        DefaultCacheSerializer.default.data(with: image, original: original)
    }

    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        decodes.add(1, ordering: .acquiringAndReleasing)
        latch.block()
        return DefaultCacheSerializer.default.image(with: data, options: options)
    }
}

/// A processor that counts runs, holds them on a latch and records whether it ran on a queue.
final class GatedProcessor: ImageProcessor {
    let identifier: String
    let latch = BlockingLatch()
    let onQueue = Mutex<[Bool]>([])
    private let runs = Atomic<Int>(0)
    var runCount: Int { runs.load(ordering: .acquiring) }

    init(_ identifier: String) { self.identifier = identifier }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        runs.add(1, ordering: .acquiringAndReleasing)
        onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: queueMark) == true) }
        latch.block()
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}

/// Marks the queues tests dispatch to.
let queueMark = DispatchSpecificKey<Bool>()

/// An async provider that waits for a gate and records whether it saw cancellation.
final class GatedProvider: ImageDataProvider {
    let cacheKey: String
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))
    let calls = Recorder<Int>()
    let cancellations = Recorder<Int>()

    init(cacheKey: String) { self.cacheKey = cacheKey }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func data() async throws -> Data {
        calls.record(1)
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if state.open || Task.isCancelled { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            open()
        }
        if Task.isCancelled {
            cancellations.record(1)
            throw CancellationError()
        }
        return DownloaderKit.png
    }
}

/// Waits, yielding, until `condition` holds (under the test's watchdog).
func eventually(_ condition: @Sendable () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite struct KingfisherManagerConcurrencyTests {
    @Test func concurrentCallersShareOneDiskRead() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/shared.png")
            _ = await ManagerKit.retrieve(manager, source, [.waitForCache])
            cache.clearMemoryCache()
            let serializer = CountingSerializer()
            let results = Recorder<(Int, CacheType?, Bool)>()
            let tasks = (0..<8).map { index in
                manager.retrieveImage(with: source, options: [.cacheSerializer(serializer)]) { result in
                    results.record((index, result.cacheType, result.error?.isTaskCancelled ?? false))
                }
            }
            tasks[0]?.cancel()
            await serializer.latch.waitUntilEntered(1)
            serializer.latch.open()
            let values = await results.wait(for: 8)
            #expect(serializer.decodeCount == 1)
            #expect(values.filter { $0.2 }.map(\.0) == [0])
            #expect(values.filter { $0.1 == .disk }.count == 7)
            #expect(server.requestCount(for: "/shared.png") == 1)
        }
    }

    @Test func concurrentCallersShareOneProcessingOfTheOriginal() async throws {
        try await ManagerKit.run { server, manager, cache in
            let source = ManagerKit.serve(server, "/orig.png")
            _ = await ManagerKit.retrieve(manager, source, [.waitForCache])
            cache.clearMemoryCache()
            let processor = GatedProcessor("gated-original")
            let results = Recorder<CacheType?>()
            for _ in 0..<8 {
                manager.retrieveImage(with: source, options: [.processor(processor)]) { results.record($0.cacheType) }
            }
            await processor.latch.waitUntilEntered(1)
            await eventually { manager.originals.subscriberCount == 8 }
            processor.latch.open()
            let values = await results.wait(for: 8)
            #expect(processor.runCount == 1)
            #expect(values.allSatisfy { $0 == CacheType.none })
            #expect(server.requestCount(for: "/orig.png") == 1)
        }
    }

    @Test func concurrentDownloadsShareOneProcessing() async throws {
        try await ManagerKit.run { server, manager, _ in
            let gate = TestGate()
            server.route("/held.png", .held(DownloaderKit.png, gate: gate))
            let processor = GatedProcessor("gated-download")
            processor.latch.open()
            let results = Recorder<CacheType?>()
            for _ in 0..<6 {
                manager.retrieveImage(with: server.url("/held.png"), options: [.processor(processor)]) { results.record($0.cacheType) }
            }
            await gate.waitUntilWaiting(count: 1)
            gate.open()
            #expect(await results.wait(for: 6).allSatisfy { $0 == CacheType.none })
            #expect(processor.runCount == 1)
            #expect(server.requestCount(for: "/held.png") == 1)
        }
    }

    @Test func providerWorkIsSharedAndSurvivesOneCancellation() async throws {
        try await ManagerKit.run { _, manager, _ in
            let provider = GatedProvider(cacheKey: "gated")
            let processor = CountingProcessor("count-provider")
            let results = Recorder<(Int, Bool)>()
            let tasks = (0..<5).map { index in
                manager.retrieveImage(with: .provider(provider), options: [.processor(processor)]) { result in
                    results.record((index, result.error?.isTaskCancelled ?? false))
                }
            }
            _ = await provider.calls.wait(for: 1)
            await eventually { manager.provided.subscriberCount == 5 }
            tasks[2]?.cancel()
            provider.open()
            let values = await results.wait(for: 5)
            #expect(values.filter(\.1).map(\.0) == [2])
            #expect(provider.calls.values.count == 1)
            #expect(provider.cancellations.values.isEmpty)
            #expect(processor.runCount == 1)
        }
    }

    @Test func cancellingTheLastCallerCancelsTheProvider() async throws {
        try await ManagerKit.run { _, manager, _ in
            let provider = GatedProvider(cacheKey: "cancel-me")
            let results = Recorder<Bool>()
            let first = manager.retrieveImage(with: .provider(provider)) { results.record($0.error?.isTaskCancelled ?? false) }
            let second = manager.retrieveImage(with: .provider(provider)) { results.record($0.error?.isTaskCancelled ?? false) }
            _ = await provider.calls.wait(for: 1)
            await eventually { manager.provided.subscriberCount == 2 }
            first?.cancel()
            #expect(await results.wait(for: 1) == [true])
            #expect(provider.cancellations.values.isEmpty)
            second?.cancel()
            #expect(await results.wait(for: 2) == [true, true])
            _ = await provider.cancellations.wait(for: 1)
            #expect(first?.isCancelled == true)
        }
    }

    @Test func completionRunsExactlyOnceUnderCancelRaces() async throws {
        try await ManagerKit.run { server, manager, _ in
            let gate = TestGate()
            server.route("/race.png", .held(DownloaderKit.png, gate: gate))
            let counts = Mutex([Int](repeating: 0, count: 100))
            let done = Recorder<Int>()
            let complete: @Sendable (Int) -> Void = { index in
                counts.withLock { $0[index] += 1 }
                done.record(index)
            }
            let network = (0..<50).map { index in
                manager.retrieveImage(with: server.url("/race.png")) { _ in complete(index) }
            }
            let provided = (50..<100).map { index in
                let provider = RawImageDataProvider(data: DownloaderKit.png, cacheKey: "race-\(index)")
                return manager.retrieveImage(with: .provider(provider), options: [.forceRefresh]) { _ in complete(index) }
            }
            await gate.waitUntilWaiting(count: 1)
            let tasks = network + provided
            DispatchQueue.concurrentPerform(iterations: 100) { index in
                if index == 40 { gate.open() }
                if index % 2 == 0 { tasks[index]?.cancel() }
                if index % 3 == 0 { tasks[index]?.cancel() }
            }
            _ = await done.wait(for: 100)
            // A retrieval started after every call finished completes after any stray callback
            // already queued on the same threads would have run.
            _ = await ManagerKit.retrieve(manager, .network(server.url("/race.png")), [.forceRefresh])
            #expect(counts.withLock { $0 }.allSatisfy { $0 == 1 })
            #expect(done.values.count == 100)
        }
    }

    @Test func asyncRetrievalHonoursTaskCancellation() async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/never.png", .never())
            let url = server.url("/never.png")
            let work = Task { try await manager.retrieveImage(with: url) }
            await server.waitUntilRequestCount(for: "/never.png", reaches: 1)
            work.cancel()
            let error = await #expect(throws: KingfisherError.self) { try await work.value }
            #expect(error?.isTaskCancelled == true)
            let early = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await manager.retrieveImage(with: url)
            }
            let earlyError = await #expect(throws: KingfisherError.self) { try await early.value }
            guard case .requestError(reason: .asyncTaskContextCancelled)? = earlyError else {
                Issue.record("expected asyncTaskContextCancelled, got \(String(describing: earlyError))")
                return
            }
        }
    }

    @Test func cancellingTheReturnedTaskGivesTaskCancelled() async throws {
        try await ManagerKit.run { server, manager, _ in
            server.route("/slow.png", .never())
            let result = Recorder<KingfisherError?>()
            let task = manager.retrieveImage(with: server.url("/slow.png")) { result.record($0.error) }
            await server.waitUntilRequestCount(for: "/slow.png", reaches: 1)
            #expect(task?.sessionTask != nil)
            task?.cancel()
            let error = await result.wait(for: 1).first ?? nil
            #expect(error?.isTaskCancelled == true)
            #expect(task?.isCancelled == true)
        }
    }
}
