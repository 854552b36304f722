import Foundation
import HTTPTypes
import Hummingbird
import Kingfisher
import KingfisherSynchronization
import Logging

/// The image server: signed image requests answered through Kingfisher's pipeline, with
/// `/health` and `/metrics` beside them.
///
/// Mount it in any Hummingbird application with ``addRoutes(to:)``; `kf serve` is an application
/// with nothing else in it. Another framework hands its requests to ``response(to:)``, which
/// answers them with the same code. The server fetches origins through `manager` (its downloader is set
/// to the configured size limit and timeout, with redirects off) and keeps rendered images in
/// memory and in the manager's disk cache. Call ``shutdown()`` (or run an ``ImageServerService``) when done.
public final class ImageServer: Sendable {
    /// The configuration the server was made with.
    public let configuration: ImageServerConfiguration
    /// The manager that fetches and processes origins.
    public let manager: KingfisherManager
    /// The server's metrics, written out by `/metrics`.
    public let metrics: ServerMetrics
    /// Where request lines and refusals are logged.
    public let logger: Logger

    let pipeline: RenditionPipeline
    let signer: URLSigner?
    let addressGuard: AddressGuard
    /// The server's own grammar, at the root unless a mount takes it.
    let nativeGrammar: NativeGrammar
    /// `X-Kf-Replica: NAME` when the configuration names the instance.
    let replicaField: HTTPField?
    /// Reads the client's address for the request log.
    let clientAddress: ClientAddress
    /// Set once draining starts; `/health` then answers 503.
    private let draining = Atomic<Bool>(false)

    /// A server with `configuration` fetching through `manager`.
    ///
    /// The manager's downloader is changed: its maximum response size and timeout become the
    /// configured limits, and it follows at most ``ImageServerConfiguration/maxRedirects`` redirects,
    /// each hop checked against the allow-list and the address rules before it is fetched.
    public init(configuration: ImageServerConfiguration, manager: KingfisherManager, logger: Logger = Logger(label: "kf.serve")) {
        self.configuration = configuration
        self.manager = manager
        var logger = logger
        if let name = configuration.instanceName { logger[metadataKey: "instance"] = "\(name)" }
        self.logger = logger
        let metrics = ServerMetrics(replica: configuration.instanceName)
        self.metrics = metrics
        let downloader = manager.downloader
        downloader.maximumResponseSize = configuration.limits.maxSourceBytes
        downloader.downloadTimeout = configuration.limits.upstreamTimeout
        downloader.maximumRedirects = configuration.maxRedirects
        let addressGuard = AddressGuard(
            allowPrivateAddresses: configuration.allowPrivateAddresses, allowedAddresses: configuration.allowedAddresses)
        self.pipeline = RenditionPipeline(
            manager: manager, limits: configuration.limits, memoryLimit: configuration.renditionMemoryLimit, metrics: metrics,
            encoding: ImageEncodingOptions(compressionQuality: configuration.defaultQuality, avifSpeed: configuration.avifSpeed),
            keepsOriginals: configuration.keepsOriginals,
            redirects: RedirectVetting(allowedSources: configuration.allowedSources, addressGuard: addressGuard),
            s3: configuration.s3)
        self.signer = configuration.signingKey.map { URLSigner(key: $0) }
        self.addressGuard = addressGuard
        self.nativeGrammar = NativeGrammar(
            signingKey: configuration.signingKey, allowsUnsigned: configuration.allowsUnsigned, localRoot: configuration.localRoot)
        self.replicaField = configuration.instanceName.flatMap { name in
            HTTPField.Name("X-Kf-Replica").map { HTTPField(name: $0, value: name) }
        }
        self.clientAddress = ClientAddress(trustedProxies: configuration.trustedProxies)
    }

    /// Whether the server is draining: `/health` and `/healthcheck` answer `503 draining` while
    /// every other route is still served.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Starts draining (see ``isDraining``), so a load balancer polling `/health` stops sending
    /// requests before the listener closes; there is no way back.
    public func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// Adds `GET /{signature}/{format}/{spec}/{source}` (see ``ImagePath``; also `HEAD`), `GET /health`,
    /// `GET /healthcheck` (thumbor's) and `GET /metrics` (unless ``ImageServerConfiguration/servesMetricsSeparately``) to `router`, relative to wherever the router
    /// is mounted, the demo page at `GET /` when ``ImageServerConfiguration/demoSamples`` is set,
    /// and a middleware serving ``ImageServerConfiguration/mounts`` (their prefixes are absolute paths).
    ///
    /// Every request to these routes is logged (one line) and counted in ``metrics``. Requests no
    /// route matches belong to the application; ``unmatchedRequestMiddleware()`` answers, logs
    /// and counts them as `kf serve` does.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        if !configuration.mounts.isEmpty {
            _ = router.add(middleware: GrammarMountMiddleware<Context>(server: self))
        }
        router.get("healthcheck") { [self] request, _ in
            await answer(request, route: .health(healthy: "WORKING"))
        }
        router.get("health") { [self] request, _ in
            await answer(request, route: .health(healthy: "ok\n"))
        }
        if !configuration.servesMetricsSeparately { addMetricsRoute(to: router) }
        if !configuration.rootIsMounted {
            router.get(":signature/:format/:spec/:source") { [self] request, _ in
                await answer(request, route: .image(nativeGrammar, rawPath: Self.lastSegments(4, of: request.uri.path)))
            }
            router.head(":signature/:format/:spec/:source") { [self] request, _ in
                await answer(request, route: .image(nativeGrammar, rawPath: Self.lastSegments(4, of: request.uri.path)))
            }
        }
        if let samples = configuration.demoSamples {
            addDemoRoutes(to: router, samples: samples)
        }
    }

    /// Adds `GET /metrics`, the Prometheus exposition of ``metrics``.
    func addMetricsRoute<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("metrics") { [self] request, _ in
            await answer(request, route: .metrics)
        }
    }

    /// A middleware that answers the requests no route matched: `404` for a path the server does
    /// not serve and `405` (with `Allow: GET, HEAD`) for a method other than GET and HEAD, each with a one-line
    /// reason like the server's other refusals, logged and counted in ``metrics`` like its routes.
    ///
    /// Add it to the router before ``addRoutes(to:)`` (as ``makeApplication(host:port:onServerRunning:)``
    /// does); it also sees the application's own routes, and leaves what they answer alone.
    public func unmatchedRequestMiddleware<Context: RequestContext>() -> some RouterMiddleware<Context> {
        UnmatchedRequestMiddleware<Context>(server: self)
    }

    /// The path to request for `source` processed by `spec` in `format`, signed with the server's key.
    public func path(for source: URL, spec: String, format: OutputFormat) -> String {
        ImagePath(source: source, spec: spec, format: format, signer: signer).path
    }

    /// Stops the downloader; later origin fetches fail.
    public func shutdown() async {
        try? await manager.downloader.shutdown()
    }

    /// The last `count` segments of `path`, with a leading `/`: the native grammar's part of a path
    /// however deep the router is mounted.
    static func lastSegments(_ count: Int, of path: String) -> Substring {
        var index = path.endIndex
        var found = 0
        while index > path.startIndex {
            let previous = path.index(before: index)
            if path[previous] == "/" {
                found += 1
                if found == count { return path[previous...] }
            }
            index = previous
        }
        return Substring(path)
    }

    /// Answers a Hummingbird request on `route` (see ``response(to:)``): the one answer every
    /// framework gets, logged with the client ``ReplicaMiddleware`` resolved.
    func answer(_ request: Request, route: ImageServerRoute) async -> Response {
        Response(await respond(to: ImageServerRequest(request), route: route, client: RequestClient.address))
    }
}
