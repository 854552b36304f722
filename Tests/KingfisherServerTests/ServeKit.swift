import Foundation
import Hummingbird
import HummingbirdTesting
@testable import Kingfisher
import KingfisherTestServer
import KingfisherSynchronization
import Logging
@testable import KingfisherServer

/// A running image server in front of a loopback origin, for one test.
struct ServeHarness: Sendable {
    let origin: TestHTTPServer
    let server: ImageServer
    let client: any TestClientProtocol

    /// The signed path of `route` on the origin.
    func path(_ route: String, spec: String = ImagePath.noProcessing, format: OutputFormat = .png) -> String {
        server.path(for: origin.url(route), spec: spec, format: format)
    }

    /// GETs `path` from the image server.
    func get(_ path: String, headers: HTTPFields = [:]) async throws -> HummingbirdTesting.TestResponse {
        try await client.execute(uri: path, method: .get, headers: headers)
    }

    /// Sends `method` for `path` to the image server.
    func send(_ method: HTTPRequest.Method, _ path: String) async throws -> HummingbirdTesting.TestResponse {
        try await client.execute(uri: path, method: method)
    }
}

/// The lines a logger wrote, for tests that read the request log.
final class LogCapture: Sendable {
    struct Line: Sendable, CustomStringConvertible {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
        var description: String {
            "\(level) \(message) " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
    }

    private let captured = Mutex<[Line]>([])

    /// Every line so far, in order.
    var lines: [Line] { captured.withLock { $0 } }

    /// A handler that records into this capture.
    func handler() -> some LogHandler { Handler(capture: self) }

    fileprivate func append(_ line: Line) { captured.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var fields: [String: String] = [:]
            for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
            capture.append(Line(level: event.level, message: "\(event.message)", metadata: fields))
        }
    }
}

enum ServeKit {
    static let key = Data("kf-serve-test-key-0123456789abcdef".utf8)

    /// A 64×48 opaque gradient as JPEG.
    static let jpeg: Data = (try? gradient(width: 64, height: 48, alpha: false).encoded(as: .JPEG)) ?? Data()
    /// A 40×30 gradient with alpha as PNG.
    static let png: Data = (try? gradient(width: 40, height: 30, alpha: true).encoded(as: .PNG)) ?? Data()

    static func gradient(width: Int, height: Int, alpha: Bool) -> KFCrossPlatformImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let a = alpha ? 128 + x * 127 / max(1, width - 1) : 255
                pixels[offset] = UInt8(x * 255 / max(1, width - 1) * a / 255)
                pixels[offset + 1] = UInt8(y * 255 / max(1, height - 1) * a / 255)
                pixels[offset + 2] = UInt8(96 * a / 255)
                pixels[offset + 3] = UInt8(a)
            }
        }
        return KFCrossPlatformImage(frame: ImageFrame(unchecked: width, height: height, pixels: pixels))
    }

    /// Limits for tests: generous timeouts so only the tests about them reach them.
    static let limits = ImageServerLimits(upstreamTimeout: 10, processingTimeout: 20, maxConcurrentJobs: 4, maxQueuedJobs: 64)

    /// Runs `body` with a fresh origin, cache and image server (signed with ``key``, allowing the
    /// origin at 127.0.0.1), under a watchdog; everything is shut down and removed afterwards.
    static func run(
        seconds: Double = 30,
        clock: CacheClock? = nil,
        log: LogCapture? = nil,
        configure: @Sendable (inout ImageServerConfiguration) -> Void = { _ in },
        applicationRoutes: (Router<BasicRequestContext>) -> Void = { _ in },
        _ body: @escaping @Sendable (ServeHarness) async throws -> Void
    ) async throws {
        let origin = try await TestHTTPServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-serve-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var diskConfig = DiskStorage.Config(name: "serve", sizeLimit: 0, directory: folder)
        if let clock { diskConfig.clock = clock }
        let cache = ImageCache(
            memoryStorage: MemoryStorage.Backend(config: MemoryStorage.Config(totalCostLimit: 32 << 20, cleanInterval: 0)),
            diskStorage: try DiskStorage.Backend(config: diskConfig))
        let downloader = ImageDownloader(name: "serve-test")
        var configuration = ImageServerConfiguration(
            signingKey: key, allowedSources: SourceAllowList(["127.0.0.1"]), allowedAddresses: ["127.0.0.1"],
            limits: limits, maxAge: 600)
        configure(&configuration)
        var logger = log.map { log in Logger(label: "kf.serve.test") { _ in log.handler() } } ?? Logger(label: "kf.serve.test")
        logger.logLevel = log == nil ? .critical : .info
        let server = ImageServer(
            configuration: configuration, manager: KingfisherManager(downloader: downloader, cache: cache), logger: logger)
        // As kf serve's application has it (makeApplication).
        let router = Router()
        router.add(middleware: server.unmatchedRequestMiddleware())
        server.addRoutes(to: router)
        applicationRoutes(router)
        let app = Application(router: router)
        do {
            try await withWatchdog(.seconds(seconds)) {
                try await app.test(.router) { client in
                    try await body(ServeHarness(origin: origin, server: server, client: client))
                }
            }
        } catch {
            await server.shutdown()
            try? await origin.shutdown()
            throw error
        }
        await server.shutdown()
        try await origin.shutdown()
    }
}

extension HummingbirdTesting.TestResponse {
    /// The body as text, for refusals.
    var text: String { String(buffer: body) }
    /// The body's bytes.
    var data: Data { Data(buffer: body) }
}
