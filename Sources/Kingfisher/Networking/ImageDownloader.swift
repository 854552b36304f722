import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads images over HTTP(S) with its own AsyncHTTPClient `HTTPClient`, sharing one request
/// among the callers of one URL.
///
/// Linux differences from Kingfisher: the transfer runs on AsyncHTTPClient (URLSession on Linux is
/// slow and misses delegate callbacks), so there is no `sessionConfiguration`; TLS trust is
/// ``trustedHosts`` plus ``addTrustedRootCertificates(pem:)``; the downloader owns its client and
/// should be shut down with ``shutdown()`` when no longer needed (a downloader released without
/// it shuts its client down in the background). HTTP/2 is used when the server offers it over TLS.
/// All properties are safe to read and set from any thread.
public final class ImageDownloader: Sendable {
    /// The priority of requests that do not set `.downloadPriority`.
    public static let defaultDownloadPriority: Float = 0.5

    /// The shared downloader (8 connections per host). Never shut it down.
    public static let `default` = ImageDownloader(validName: "default", maxConnectionsPerHost: 8)

    /// Why an ``ImageDownloader`` could not be made.
    public enum InitError: Error, Sendable, CustomStringConvertible {
        /// The name is empty.
        case emptyName

        /// One sentence saying what is wrong.
        public var description: String { "An image downloader needs a non-empty name." }
    }

    /// The downloader's name, for logs.
    public let name: String
    /// The most requests sent at once to one host; further requests wait by ``KingfisherOptionsInfoItem/downloadPriority(_:)``.
    public let maxConnectionsPerHost: Int

    let client: HTTPClient
    let scheduler: HostScheduler
    let sweeper = WatchdogSweeper()
    private let settings: Mutex<Settings>
    private let sessionTasks = Mutex<[RequestKey: SessionDataTask]>([:])
    private let isShutDown = Atomic<Bool>(false)

    private struct Settings {
        var downloadTimeout: TimeInterval = 15
        var trustedHosts: Set<String>?
        var trustRoots: [NIOSSLCertificate] = []
        var maximumResponseSize: Int64 = 100 * 1024 * 1024
        var maximumRedirects = 10
        var delegate = WeakDelegate()
    }

    private struct WeakDelegate {
        weak var value: (any ImageDownloaderDelegate)?
    }

    /// Makes a downloader named `name` with its own HTTP client.
    ///
    /// - Parameters:
    ///   - name: A non-empty name; an empty one throws ``InitError/emptyName``.
    ///   - maxConnectionsPerHost: The most requests in flight per host (at least 1; default 8).
    public convenience init(name: String, maxConnectionsPerHost: Int = 8) throws {
        guard !name.isEmpty else { throw InitError.emptyName }
        self.init(validName: name, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    private init(validName name: String, maxConnectionsPerHost: Int) {
        self.name = name
        let limit = max(1, maxConnectionsPerHost)
        self.maxConnectionsPerHost = limit
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)),
            connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: limit)
        )
        configuration.httpVersion = .automatic
        // A failed connection (refused, TLS verification) fails its requests at once instead of
        // being retried until the connect timeout; retrying is the RetryStrategy's job.
        configuration.connectionPool.retryConnectionEstablishment = false
        // No distributed-tracing spans per image request: they cost about 4% of the CPU of a
        // download even with the no-op tracer.
        configuration.tracing.tracer = nil
        self.client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        self.scheduler = HostScheduler(limit: limit)
        self.settings = Mutex(Settings())
    }

    deinit {
        // Never leave AsyncHTTPClient's client running (it asserts on that in debug builds). The
        // callback form of shutdown neither blocks nor needs an async context, and the client
        // stays alive until its pool has closed.
        if !isShutDown.load(ordering: .acquiring) {
            client.shutdown(queue: .global()) { _ in }
        }
    }

    /// Cancels every download, then shuts the HTTP client down; the downloader fails every later
    /// download with a transfer error. Calling it again does nothing.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelAll()
        try await client.shutdown()
    }

    /// Seconds without progress from the server before a download fails with
    /// `.responseError(.downloadTimedOut)`. Default 15.
    ///
    /// Progress is the response's headers, then every 1 KiB of body: a server that dribbles a
    /// few bytes at a time (under 1 KiB per timeout) is stalled however often its bytes come, so a
    /// slow-loris origin cannot hold a download open for ever. A body that ends is never a stall.
    public var downloadTimeout: TimeInterval {
        get { settings.withLock { $0.downloadTimeout } }
        set { settings.withLock { $0.downloadTimeout = newValue.isFinite && newValue > 0 ? newValue : 15 } }
    }

    /// Hosts whose TLS certificate is accepted without verification (self-signed servers).
    public var trustedHosts: Set<String>? {
        get { settings.withLock { $0.trustedHosts } }
        set { settings.withLock { $0.trustedHosts = newValue } }
    }

    /// The largest body accepted, in bytes, checked against `Content-Length` and while reading.
    /// Default 100 MB.
    public var maximumResponseSize: Int64 {
        get { settings.withLock { $0.maximumResponseSize } }
        set { settings.withLock { $0.maximumResponseSize = max(0, newValue) } }
    }

    /// The most redirects followed for one download. Default 10.
    public var maximumRedirects: Int {
        get { settings.withLock { $0.maximumRedirects } }
        set { settings.withLock { $0.maximumRedirects = max(0, newValue) } }
    }

    /// Told about each download's stages; held weakly, as in Kingfisher.
    public var delegate: (any ImageDownloaderDelegate)? {
        get { settings.withLock { $0.delegate.value } }
        set { settings.withLock { $0.delegate.value = newValue } }
    }

    /// Trusts the certificates in `pem` as roots for HTTPS, besides the system's.
    ///
    /// Throws NIOSSL's error when the PEM holds no valid certificate.
    public func addTrustedRootCertificates(pem: String) throws {
        let certificates = try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        settings.withLock { $0.trustRoots.append(contentsOf: certificates) }
    }

    /// Cancels every caller of every download; each gets `.requestError(.taskCancelled)`.
    public func cancelAll() {
        let tasks = sessionTasks.withLock { Array($0.values) }
        for task in tasks { task.forceCancel() }
    }

    /// Cancels every caller of the downloads of `url` (as sent, after the request modifier).
    public func cancel(url: URL) {
        let tasks = sessionTasks.withLock { $0.values.filter { $0.originalURL == url } }
        for task in tasks { task.forceCancel() }
    }

    // MARK: - Internals used by the transfer

    struct TransferSettings {
        let timeout: TimeInterval
        let maximumResponseSize: Int64
        let maximumRedirects: Int
        let trustedHosts: Set<String>
        let trustRoots: [NIOSSLCertificate]
    }

    var transferSettings: TransferSettings {
        settings.withLock {
            TransferSettings(
                timeout: $0.downloadTimeout,
                maximumResponseSize: $0.maximumResponseSize,
                maximumRedirects: $0.maximumRedirects,
                trustedHosts: $0.trustedHosts ?? [],
                trustRoots: $0.trustRoots
            )
        }
    }

    /// The running transfer for `key` that takes `caller`, or a new one (not started yet).
    func sessionTask(for key: RequestKey, caller: DownloadTask, make: () -> SessionDataTask)
        -> (task: SessionDataTask, token: SessionDataTask.CancelToken, isNew: Bool)?
    {
        sessionTasks.withLock { tasks in
            if let existing = tasks[key], let token = existing.add(caller) {
                return (existing, token, false)
            }
            let task = make()
            guard let token = task.add(caller) else { return nil }
            tasks[key] = task
            return (task, token, true)
        }
    }

    /// Forgets `task` so that new callers start a new transfer.
    func removeSessionTask(_ task: SessionDataTask) {
        sessionTasks.withLock { tasks in
            if tasks[task.key] === task { tasks[task.key] = nil }
        }
    }

    /// The number of transfers in flight (for tests).
    var sessionTaskCount: Int { sessionTasks.withLock { $0.count } }
}
