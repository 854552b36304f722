import AsyncHTTPClient
import Foundation
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The AsyncHTTPClient clients built from one session configuration: one for `http` and one for
/// `https` URLs (the same client unless the two proxies differ).
///
/// Setting ``ImageDownloader/sessionConfiguration`` retires the current transport: the transfers
/// using it finish on it, and the last one to end shuts its clients down.
final class TransportClient: Sendable {
    let values: SessionConfigurationValues
    private let http: HTTPClient
    private let https: HTTPClient

    private struct State {
        var users = 0
        var retired = false
        var shutDown = false
        var session: URLSessionBox?
    }

    private let state = Mutex(State())

    init(_ values: SessionConfigurationValues) {
        self.values = values
        let http = Self.makeClient(values, proxy: values.httpProxy)
        self.http = http
        https = values.httpsProxy == values.httpProxy ? http : Self.makeClient(values, proxy: values.httpsProxy)
    }

    /// The client for `url`'s scheme.
    func client(for url: URL) -> HTTPClient {
        url.scheme?.lowercased() == "https" ? https : http
    }

    /// Counts a transfer that is about to use the clients; pair with ``release()``.
    func acquire() {
        state.withLock { $0.users += 1 }
    }

    /// Ends a transfer's use; the last one on a retired transport shuts it down.
    func release() {
        let shut = state.withLock { state -> Bool in
            state.users -= 1
            return state.users == 0 && state.retired && Self.markShutDown(&state)
        }
        if shut { shutDownInBackground() }
    }

    /// No new transfer will use the clients; they shut down once the running ones end.
    func retire() {
        let shut = state.withLock { state -> Bool in
            state.retired = true
            return state.users == 0 && Self.markShutDown(&state)
        }
        if shut { shutDownInBackground() }
    }

    /// Shuts the clients down now, failing whatever still runs on them.
    func shutDown() async throws {
        guard state.withLock({ Self.markShutDown(&$0) }) else { return }
        state.withLock { $0.session }?.session.finishTasksAndInvalidate()
        try await http.shutdown()
        if https !== http { try await https.shutdown() }
    }

    /// A URLSession made with this configuration that sends nothing: what the ``SessionDelegate``
    /// hooks are given as their `session`. Made on first use.
    var session: URLSession {
        state.withLock { state in
            if let box = state.session { return box.session }
            let box = URLSessionBox(URLSession(configuration: values.configuration.copy()))
            state.session = box
            return box.session
        }
    }

    private static func markShutDown(_ state: inout State) -> Bool {
        guard !state.shutDown else { return false }
        state.shutDown = true
        return true
    }

    private func shutDownInBackground() {
        // The callback form neither blocks nor needs an async context.
        http.shutdown(queue: .global()) { _ in }
        if https !== http { https.shutdown(queue: .global()) { _ in } }
        state.withLock { $0.session }?.session.finishTasksAndInvalidate()
    }

    private static func makeClient(_ values: SessionConfigurationValues, proxy: SessionConfigurationValues.Proxy?) -> HTTPClient {
        let connect = Int64(min(10, values.requestTimeout) * 1000)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(max(1, connect))),
            connectionPool: .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: values.maxConnectionsPerHost)
        )
        configuration.httpVersion = .automatic
        // A failed connection (refused, TLS verification) fails its requests at once instead of
        // being retried until the connect timeout; retrying is the RetryStrategy's job.
        configuration.connectionPool.retryConnectionEstablishment = false
        // No distributed-tracing spans per image request: they cost about 4% of the CPU of a
        // download even with the no-op tracer.
        configuration.tracing.tracer = nil
        if let proxy {
            configuration.proxy = .server(host: proxy.host, port: proxy.port)
        }
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}

/// A URLSession to hand to the delegate hooks.
///
/// `@unchecked Sendable`: URLSession guards its own state; the box is only read.
final class URLSessionBox: @unchecked Sendable {
    let session: URLSession
    init(_ session: URLSession) { self.session = session }
}
