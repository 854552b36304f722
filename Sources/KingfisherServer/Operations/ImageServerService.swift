import Hummingbird
import ServiceLifecycle

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
