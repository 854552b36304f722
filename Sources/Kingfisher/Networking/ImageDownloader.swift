import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads images over HTTP(S) with AsyncHTTPClient, sharing one request among the callers of
/// one URL.
///
/// Linux differences from Kingfisher: the transfer runs on AsyncHTTPClient (URLSession on Linux is
/// slow and misses delegate callbacks); ``sessionConfiguration`` is applied to it as far as its
/// settings mean something there (see that property). TLS trust is ``trustedHosts``,
/// ``addTrustedRootCertificates(pem:)`` and the ``authenticationChallengeResponder``. The
/// downloader owns its clients and should be shut down with ``shutdown()`` when no longer needed
/// (a downloader released without it shuts its clients down in the background). HTTP/2 is used
/// when the server offers it over TLS. All properties are safe to read and set from any thread.
public final class ImageDownloader: Sendable {
    /// The priority of requests that do not set `.downloadPriority`.
    public static let defaultDownloadPriority: Float = 0.5

    /// The shared downloader (8 connections per host). Never shut it down.
    public static let `default` = ImageDownloader(name: "default")

    /// The downloader's name, for logs.
    public let name: String

    let scheduler: HostScheduler
    let sweeper = WatchdogSweeper()
    let settings: Mutex<Settings>
    let transportState: Mutex<TransportClient>
    private let sessionTasks = Mutex<[RequestKey: SessionDataTask]>([:])
    let isShutDown = Atomic<Bool>(false)

    struct Settings {
        var downloadTimeout: TimeInterval = 15
        var trustedHosts: Set<String>?
        var trustRoots: [NIOSSLCertificate] = []
        var maximumResponseSize: Int64 = 100 * 1024 * 1024
        var maximumRedirects = 10
        var delegate = WeakDelegate()
        var responder = WeakResponder()
        var sessionDelegate = SessionDelegate()
        var requestsUsePipelining = false
    }

    struct WeakDelegate {
        weak var value: (any ImageDownloaderDelegate)?
    }

    struct WeakResponder {
        weak var value: (any AuthenticationChallengeResponsible)?
    }

    /// Makes a downloader named `name` with its own HTTP client.
    ///
    /// - Parameters:
    ///   - name: The name for logs; an empty one becomes `"unnamed"` (Kingfisher stops the app
    ///     there instead).
    ///   - maxConnectionsPerHost: The most requests in flight per host (at least 1; default 8). It
    ///     becomes the ``sessionConfiguration``'s `httpMaximumConnectionsPerHost`.
    public init(name: String, maxConnectionsPerHost: Int = 8) {
        self.name = name.isEmpty ? "unnamed" : name
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = max(1, maxConnectionsPerHost)
        let values = SessionConfigurationValues(configuration)
        self.transportState = Mutex(TransportClient(values))
        self.scheduler = HostScheduler(limit: values.maxConnectionsPerHost)
        self.settings = Mutex(Settings())
        settings.withLock { settings in
            settings.responder.value = self
            settings.sessionDelegate.attach(to: self)
        }
    }

    deinit {
        // Never leave AsyncHTTPClient's client running (it asserts on that in debug builds).
        if !isShutDown.load(ordering: .acquiring) {
            transportState.withLock { $0 }.retire()
        }
    }

    /// Cancels every download, then shuts the HTTP client down; the downloader fails every later
    /// download with a transfer error. Calling it again does nothing.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        cancelAll()
        try await transportState.withLock { $0 }.shutDown()
    }

    /// The most requests sent at once to one host (the ``sessionConfiguration``'s
    /// `httpMaximumConnectionsPerHost`); further requests wait by
    /// ``KingfisherOptionsInfoItem/downloadPriority(_:)``.
    public var maxConnectionsPerHost: Int { transportState.withLock { $0.values.maxConnectionsPerHost } }

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
        /// The idle timeout: the shorter of ``downloadTimeout`` and `timeoutIntervalForRequest`.
        let timeout: TimeInterval
        let maximumResponseSize: Int64
        let maximumRedirects: Int
        let trustedHosts: Set<String>
        let trustRoots: [NIOSSLCertificate]
    }

    var transferSettings: TransferSettings {
        let requestTimeout = transportState.withLock { $0.values.requestTimeout }
        return settings.withLock {
            TransferSettings(
                timeout: min($0.downloadTimeout, requestTimeout),
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
