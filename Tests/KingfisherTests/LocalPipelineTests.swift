import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// The manager's path for local files and cache misses, which runs without hand-offs: a local
/// file read and processed in one job, misses answered from the index, disk writes on the worker
/// thread unless the I/O queue holds earlier work.
@Suite struct LocalPipelineTests {
    static let processor = IdentifierOnlyProcessor(identifier: "local-pipeline")

    /// Writes a small JPEG into the fixture's folder and returns its URL.
    static func photo(in fixture: ImageCacheTests.Fixture, name: String = "photo.jpg") throws -> URL {
        let file = fixture.folder.appendingPathComponent(name)
        let bytes = try #require(TestImages.gradient(width: 64, height: 48).kf.jpegRepresentation(compressionQuality: 0.9))
        try bytes.write(to: file)
        return file
    }

    static func retrieve(
        _ source: Source, manager: KingfisherManager, options: KingfisherOptionsInfo = []
    ) async throws -> RetrieveImageResult {
        try await withWatchdog(.seconds(30)) {
            try await manager.retrieveImage(with: source, options: [.processor(processor), .waitForCache] + options)
        }
    }

    @Test func aLocalFileIsDecodedProcessedAndOnDiskWhenTheCallEnds() async throws {
        let fixture = try ImageCacheTests.Fixture()
        defer { fixture.remove() }
        let file = try Self.photo(in: fixture)
        let manager = KingfisherManager(downloader: .default, cache: fixture.cache)
        let result = try await Self.retrieve(.provider(LocalFileImageDataProvider(fileURL: file)), manager: manager)
        #expect(result.cacheType == .none)
        #expect(result.image.size == CGSize(width: 64, height: 48))
        let key = file.localFileCacheKey
        #expect(fixture.cache.diskStorage.isCached(forKey: key.computedKey(with: Self.processor.identifier)))
        // A second cache on the same folder (as another process would open it) finds the entry.
        let other = try ImageCacheTests.Fixture(sharing: fixture)
        let again = try await Self.retrieve(
            .provider(LocalFileImageDataProvider(fileURL: file)), manager: KingfisherManager(downloader: .default, cache: other.cache))
        #expect(again.cacheType == .disk)
    }

    /// A file that is not there, and a folder (the name "" stands for the fixture's own), fail
    /// with the system's error.
    @Test(arguments: [("missing.jpg", POSIXErrorCode.ENOENT), ("", .EISDIR)])
    func anUnreadablePathFailsWithTheSystemsError(name: String, code: POSIXErrorCode) async throws {
        let fixture = try ImageCacheTests.Fixture()
        defer { fixture.remove() }
        let path = name.isEmpty ? fixture.folder : fixture.folder.appendingPathComponent(name)
        let manager = KingfisherManager(downloader: .default, cache: fixture.cache)
        await #expect {
            try await Self.retrieve(.provider(LocalFileImageDataProvider(fileURL: path)), manager: manager)
        } throws: { error in
            guard case .imageSettingError(reason: .dataProviderError(_, let underlying))? = error as? KingfisherError else { return false }
            return (underlying as? POSIXError)?.code == code
        }
    }

    @Test func cancellingBeforeTheReadStoresNothing() async throws {
        let fixture = try ImageCacheTests.Fixture()
        defer { fixture.remove() }
        let file = try Self.photo(in: fixture)
        // The loading queue is held, so the cancellation surely comes before the read.
        let loading = DispatchQueue(label: "held loading queue")
        loading.suspend()
        let provider = LocalFileImageDataProvider(fileURL: file, loadingQueue: .dispatch(loading))
        let manager = KingfisherManager(downloader: .default, cache: fixture.cache)
        let outcome = Recorder<KingfisherError?>()
        let task = manager.retrieveImage(
            with: .provider(provider), options: [.processor(Self.processor), .waitForCache]
        ) { result in
            outcome.record(result.error)
        }
        task?.cancel()
        loading.resume()
        let errors = try await withWatchdog(.seconds(30)) { await outcome.wait(for: 1) }
        #expect(errors.first??.isTaskCancelled == true)
        // The job on the loading queue sees the cancellation and does no work: wait for it.
        await withCheckedContinuation { continuation in loading.async { continuation.resume() } }
        #expect(!fixture.cache.diskStorage.isCached(forKey: file.localFileCacheKey.computedKey(with: Self.processor.identifier)))
    }

    /// A write on the worker thread must not overtake work queued on the I/O queue earlier: here a
    /// disk clear, held behind a gate, then a retrieval whose store must land after the clear.
    @Test func aStoreWaitsBehindDiskWorkQueuedBeforeIt() async throws {
        let fixture = try ImageCacheTests.Fixture()
        defer { fixture.remove() }
        let file = try Self.photo(in: fixture)
        let cache = fixture.cache
        let gate = DispatchSemaphore(value: 0)
        cache.enqueueIO { gate.wait() }
        cache.clearDiskCache(completion: {})
        let manager = KingfisherManager(downloader: .default, cache: cache)
        let finished = Recorder<Bool>()
        manager.retrieveImage(
            with: .provider(LocalFileImageDataProvider(fileURL: file)),
            options: [.processor(Self.processor), .waitForCache]
        ) { result in
            finished.record((try? result.get()) != nil)
        }
        let computedKey = file.localFileCacheKey.computedKey(with: Self.processor.identifier)
        // Open the gate once the store is queued (or, were it written at once, has finished).
        try await withWatchdog(.seconds(30)) {
            while cache.pendingWrites.withLock({ $0[computedKey] == nil }) && finished.values.isEmpty {
                await Task.yield()
            }
        }
        gate.signal()
        #expect(try await withWatchdog(.seconds(30)) { await finished.wait(for: 1) } == [true])
        // Everything queued so far has run: the clear, then the store (or, out of order, the clear last).
        await withCheckedContinuation { continuation in cache.enqueueIO { continuation.resume() } }
        #expect(cache.diskStorage.isCached(forKey: computedKey))
    }

    @Test func aMissTheIndexAnswersStillSeesAnotherCachesWrite() async throws {
        let fixture = try ImageCacheTests.Fixture()
        defer { fixture.remove() }
        let other = try ImageCacheTests.Fixture(sharing: fixture)
        let key = "https://example.invalid/shared.png"
        let computedKey = key.computedKey(with: Self.processor.identifier)
        var options = KingfisherParsedOptionsInfo([.processor(Self.processor)])
        #expect(fixture.cache.diskSurelyMisses(forKey: key, options: options))
        let bytes = try #require(TestImages.gradient(width: 8, height: 8).kf.pngRepresentation())
        try other.cache.diskStorage.store(value: bytes, forKey: computedKey)
        #expect(!fixture.cache.diskSurelyMisses(forKey: key, options: options))
        // So the manager answers from the disk, without a download (the host does not exist).
        let manager = KingfisherManager(downloader: .default, cache: fixture.cache)
        let result = try await Self.retrieve(.network(try #require(URL(string: key))), manager: manager)
        #expect(result.cacheType == .disk)
        options.forcedExtension = "png"
        #expect(fixture.cache.diskSurelyMisses(forKey: key, options: options))
    }
}

extension LocalPipelineTests {
    /// Reports come from whichever thread finished a source, yet one at a time and in order: each
    /// progress report's lists hold exactly one source more than the last, and none overlaps
    /// another report.
    @Test func prefetchReportsOfLocalFilesComeOneAtATimeInOrder() async throws {
        let fixture = try ImageCacheTests.Fixture()
        defer { fixture.remove() }
        let files = try (0..<40).map { try Self.photo(in: fixture, name: "photo-\($0).jpg") }
        let manager = KingfisherManager(downloader: .default, cache: fixture.cache)
        struct Seen: Sendable {
            var inside = false
            var overlapped = false
            var totals: [Int] = []
        }
        let seen = Mutex(Seen())
        let done = Recorder<[Source]>()
        let prefetcher = ImagePrefetcher(
            sources: files.map { .provider(LocalFileImageDataProvider(fileURL: $0)) },
            options: [.processor(Self.processor)], manager: manager,
            progressBlock: { skipped, failed, completed in
                seen.withLock { seen in
                    if seen.inside { seen.overlapped = true }
                    seen.inside = true
                }
                let total = skipped.count + failed.count + completed.count
                seen.withLock { seen in
                    seen.totals.append(total)
                    seen.inside = false
                }
            },
            completionHandler: { _, _, completed in done.record(completed) })
        prefetcher.maxConcurrentDownloads = 8
        prefetcher.start()
        let completed = try await withWatchdog(.seconds(60)) { await done.wait(for: 1) }
        #expect(Set(completed[0].map(\.cacheKey)) == Set(files.map(\.localFileCacheKey)))
        let final = seen.withLock { $0 }
        #expect(!final.overlapped)
        #expect(final.totals == Array(1...files.count))
    }
}

extension ImageCacheTests.Fixture {
    /// A second cache on the folder of `fixture`, with its own memory, index, queues and a clock
    /// at the same time, as another process would open it. The first fixture removes the folder.
    init(sharing fixture: ImageCacheTests.Fixture) throws {
        try self.init(folder: fixture.folder)
    }
}
