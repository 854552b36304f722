import Hummingbird
import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// A service that keeps an ``ImageServer``'s downloader until graceful shutdown, then closes it.
///
/// Put it before the HTTP server in a service group (as ``ImageServer/makeApplication(host:port:onServerRunning:)``
/// does): services stop in reverse order, so the server first stops accepting and finishes its
/// requests in flight, then this closes the downloader. Disk cache writes are synchronous, so
/// nothing is left to flush.
public struct ImageServerService: Service {
    /// The server whose downloader is closed.
    public let server: ImageServer

    /// A service for `server`.
    public init(server: ImageServer) {
        self.server = server
    }

    /// Waits for graceful shutdown (or cancellation), then shuts the downloader down.
    public func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}

extension ImageServer {
    /// A Hummingbird application serving only this server's routes on `host`:`port` (port 0
    /// picks a free one), with ``ImageServerService`` among its services; other paths and methods
    /// are refused by ``unmatchedRequestMiddleware()``, and ``replicaMiddleware()`` sees every request.
    ///
    /// `onServerRunning` receives the bound port once the server accepts connections. Run it with
    /// ``run(_:drainingFor:signals:)`` to drain and stop gracefully on SIGTERM and SIGINT (or with
    /// `runService()` to stop at once).
    public func makeApplication(
        host: String = "127.0.0.1", port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ServeRequestContext.self)
        router.add(middleware: replicaMiddleware())
        router.add(middleware: unmatchedRequestMiddleware())
        addRoutes(to: router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kf-serve"),
            services: [ImageServerService(server: self)],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}

extension ImageServer {
    /// A Hummingbird application answering only `GET /metrics` and `GET /health` on `host`:`port`,
    /// for a port apart from the public one (give the server ``ImageServerConfiguration/servesMetricsSeparately``
    /// so the public port stops answering `/metrics`). Run it beside the public application, with
    /// ``run(_:alongside:drainingFor:signals:)``; its `/health` drains with the server's.
    ///
    /// `onServerRunning` receives the bound port once the listener accepts connections.
    public func makeMetricsApplication(
        host: String = "127.0.0.1", port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ServeRequestContext.self)
        router.add(middleware: replicaMiddleware())
        router.add(middleware: unmatchedRequestMiddleware())
        router.get("health") { [self] request, _ in
            await answer(request, route: .health(healthy: "ok\n"))
        }
        addMetricsRoute(to: router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kf-serve"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}

/// Where ``ImageServer/run(_:metrics:drainingFor:signals:)`` serves `/metrics` and `/health` apart
/// from the public port.
public struct MetricsListener: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port (0: any free one).
    public var port: Int
    /// Receives the bound port once the listener accepts connections.
    public var onServerRunning: @Sendable (Int) async -> Void

    /// A listener on `host`:`port`.
    public init(host: String, port: Int, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) {
        self.host = host
        self.port = port
        self.onServerRunning = onServerRunning
    }
}

extension ImageServer {
    /// Runs `application` as ``run(_:drainingFor:signals:)`` does, with a metrics listener beside
    /// it when `metrics` is given (see ``makeMetricsApplication(host:port:onServerRunning:)``).
    public func run(
        _ application: some ApplicationProtocol, metrics: MetricsListener?, drainingFor wait: Duration,
        signals: [Int32] = [SIGTERM, SIGINT]
    ) async throws {
        let others: [any Service] = metrics.map { listener -> [any Service] in
            [makeMetricsApplication(host: listener.host, port: listener.port, onServerRunning: listener.onServerRunning)]
        } ?? []
        try await run(application, alongside: others, drainingFor: wait, signals: signals)
    }
}
