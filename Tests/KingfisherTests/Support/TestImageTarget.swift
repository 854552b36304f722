import Foundation
import KingfisherTestServer
import KingfisherSynchronization
@testable import Kingfisher

/// An image target without a toolkit: records every image it is given, the indicators placed
/// on it, and the transition timelines it is asked to play (a test drives them by hand).
@MainActor
final class TestImageView: KingfisherHasImageComponent {
    let kingfisherState = KingfisherTargetState()

    var image: KFCrossPlatformImage? {
        didSet {
            history.append(image)
            let ready = imageWaiters.filter { $0.predicate(image) }
            imageWaiters.removeAll { $0.predicate(image) }
            for waiter in ready { waiter.continuation.resume() }
        }
    }
    private var imageWaiters: [(predicate: (KFCrossPlatformImage?) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Returns once the target shows an image matching `predicate` (at once if it already does).
    func waitForImage(where predicate: @escaping (KFCrossPlatformImage?) -> Bool) async {
        if predicate(image) { return }
        await withCheckedContinuation { imageWaiters.append((predicate, $0)) }
    }
    /// Every image set, in order (`nil` for a clear).
    private(set) var history: [KFCrossPlatformImage?] = []
    /// Indicators placed on and taken off the target.
    private(set) var addedIndicators: [any Indicator] = []
    private(set) var removedIndicators: [any Indicator] = []
    /// When `true`, transitions wait for the test to drive them; otherwise they finish at once.
    var drivesTransitions = false
    private(set) var timelines: [ImageTransitionTimeline] = []
    /// The time on the target's clock, moved by the test.
    var clock: TimeInterval = 100

    nonisolated init() {}

    func addIndicator(_ indicator: any Indicator) { addedIndicators.append(indicator) }
    func removeIndicator(_ indicator: any Indicator) { removedIndicators.append(indicator) }

    func runTransition(_ timeline: ImageTransitionTimeline) {
        timelines.append(timeline)
        timeline.start(at: clock)
        if !drivesTransitions { timeline.update(at: clock + timeline.duration) }
    }

    /// Moves the clock to `time` and updates every running timeline.
    func tick(to time: TimeInterval) {
        clock = time
        for timeline in timelines where !timeline.isFinished { timeline.update(at: time) }
    }
}

/// A target with no stored state at all: its state lives in the side table.
@MainActor
final class StatelessImageView: KingfisherHasImageComponent {
    var image: KFCrossPlatformImage?
    nonisolated init() {}
}

/// An indicator that counts starts and stops.
@MainActor
final class CountingIndicator: Indicator {
    private(set) var starts = 0
    private(set) var stops = 0
    var running: Int { starts - stops }
    nonisolated init() {}
    func startAnimatingView() { starts += 1 }
    func stopAnimatingView() { stops += 1 }
}

/// A placeholder standing for a toolkit view: records where it was added and removed.
@MainActor
final class ViewPlaceholder: Placeholder {
    private(set) var added = 0
    private(set) var removed = 0
    var isShown: Bool { added > removed }
    nonisolated init() {}
    func add(to target: any KingfisherImageSettable) { added += 1 }
    func remove(from target: any KingfisherImageSettable) { removed += 1 }
}

/// Results of `setImage` completions, recorded in order on the main actor.
typealias SetResult = Result<RetrieveImageResult, KingfisherError>

/// Shared helpers of the view-layer suites.
enum ViewKit {
    /// A server, a downloader and a cache of their own, and the options that route a target's
    /// requests to them.
    struct Env: Sendable {
        let server: TestHTTPServer
        let cache: ImageCache
        let downloader: ImageDownloader
        var options: KingfisherOptionsInfo { [.targetCache(cache), .downloader(downloader)] }
    }

    /// Runs `body` on the main actor with a fresh server, downloader and cache.
    static func run(
        seconds: Double = 30,
        _ body: @escaping @MainActor @Sendable (Env) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-views-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try ImageCache(name: "views", cacheDirectoryURL: folder)
        try await DownloaderKit.run(seconds: seconds) { server, downloader in
            try await body(Env(server: server, cache: cache, downloader: downloader))
        }
    }

    /// A distinct PNG per `index`: a gradient `index + 1` pixels wide.
    static func png(_ index: Int) -> Data {
        (try? TestImages.gradient(width: index + 1, height: 3).encoded(as: .PNG)) ?? Data()
    }
}

extension Result where Success == RetrieveImageResult, Failure == KingfisherError {
    /// The 5002 reason's parts, when this is `.notCurrentSourceTask`.
    var notCurrent: (result: RetrieveImageResult?, error: (any Error)?, source: Source)? {
        guard case .failure(.imageSettingError(.notCurrentSourceTask(let result, let error, let source))) = self else {
            return nil
        }
        return (result, error, source)
    }
}

/// A latch for test code (not server responses): `wait()` suspends until `open()`, and
/// `waitUntilWaiting(count:)` tells the test that work reached the latch.
final class TaskGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
    }
    private let state = Mutex(State())
    let arrivals = Recorder<Int>()

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state -> Bool in
                state.arrived += 1
                if state.isOpen { return true }
                state.waiting.append(continuation)
                return false
            }
            arrivals.record(1)
            if open { continuation.resume() }
        }
    }

    func waitUntilWaiting(count: Int) async {
        _ = await arrivals.wait(for: count)
    }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
