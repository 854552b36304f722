import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import Kingfisher

/// Shared helpers of the downloader suites (kept in a `*Tests.swift` file the downloader owns).
enum DownloaderKit {
    /// A 16×12 PNG, about 1 KB.
    static let png: Data = {
        (try? TestImages.gradient(width: 16, height: 12).encoded(as: .PNG)) ?? Data()
    }()

    /// A larger PNG (about 150 KB of pseudo-random pixels, which do not compress) for streaming tests.
    static let bigPNG: Data = {
        var state: UInt32 = 2463534242
        let pixels = (0..<(200 * 200 * 4)).map { index -> UInt8 in
            if index % 4 == 3 { return 255 }
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        let image = KFCrossPlatformImage(frame: ImageFrame(unchecked: 200, height: 200, pixels: pixels))
        return (try? image.encoded(as: .PNG)) ?? Data()
    }()

    /// Runs `body` with a fresh server and downloader, shutting both down afterwards, under a
    /// watchdog of `seconds`.
    static func run(
        seconds: Double = 20,
        maxConnectionsPerHost: Int = 8,
        _ body: @escaping @Sendable (TestHTTPServer, ImageDownloader) async throws -> Void
    ) async throws {
        let server = try await TestHTTPServer.start()
        let downloader = ImageDownloader(name: "test", maxConnectionsPerHost: maxConnectionsPerHost)
        do {
            try await bounded(seconds) { try await body(server, downloader) }
        } catch {
            try? await downloader.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await downloader.shutdown()
        try await server.shutdown()
    }

    /// Runs `body` under the shared test watchdog: a timeout fails the test instead of hanging it.
    @discardableResult
    static func bounded<T: Sendable>(_ seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withWatchdog(.seconds(seconds), body)
    }
}

/// Collects values from callbacks; tests await a count instead of sleeping.
final class Recorder<Value: Sendable>: Sendable {
    private struct State {
        var values: [Value] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<[Value], Never>)] = []
    }
    private let state = Mutex(State())

    func record(_ value: Value) {
        let ready = state.withLock { state -> [(CheckedContinuation<[Value], Never>, [Value])] in
            state.values.append(value)
            let values = state.values
            let (done, waiting) = state.waiters.reduce(into: ([(CheckedContinuation<[Value], Never>, [Value])](), [(count: Int, continuation: CheckedContinuation<[Value], Never>)]())) { acc, waiter in
                if values.count >= waiter.count { acc.0.append((waiter.continuation, values)) } else { acc.1.append(waiter) }
            }
            state.waiters = waiting
            return done
        }
        for (continuation, values) in ready { continuation.resume(returning: values) }
    }

    var values: [Value] { state.withLock { $0.values } }

    /// Returns the values once there are at least `count`.
    func wait(for count: Int) async -> [Value] {
        await withCheckedContinuation { continuation in
            let values = state.withLock { state -> [Value]? in
                if state.values.count >= count { return state.values }
                state.waiters.append((count, continuation))
                return nil
            }
            if let values { continuation.resume(returning: values) }
        }
    }
}

typealias DownloadResult = Result<ImageLoadingResult, KingfisherError>

extension Result where Failure == KingfisherError {
    var error: KingfisherError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A processor that counts its runs and tags its output with its own scale.
final class CountingProcessor: ImageProcessor, Sendable {
    let identifier: String
    private let runs = Atomic<Int>(0)
    init(_ identifier: String) { self.identifier = identifier }
    var runCount: Int { runs.load(ordering: .acquiring) }
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        runs.add(1, ordering: .acquiringAndReleasing)
        return DefaultImageProcessor.default.process(item: item, options: options)
    }
}

@Suite struct ImageDownloaderKitTests {
    @Test func fixturesDecode() throws {
        #expect(DownloaderKit.png.count > 100)
        #expect(DownloaderKit.bigPNG.count > 100_000)
        #expect(DefaultImageProcessor.default.process(item: .data(DownloaderKit.png), options: .init(nil)) != nil)
    }

    @Test func emptyNameIsReplacedNotACrash() async throws {
        let downloader = ImageDownloader(name: "")
        #expect(downloader.name == "unnamed")
        try await downloader.shutdown()
    }
}
