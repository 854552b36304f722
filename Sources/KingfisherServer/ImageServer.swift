import Foundation
import Hummingbird
import Kingfisher
import Logging

/// The image server: signed image requests answered through Kingfisher's pipeline, with
/// `/health` and `/metrics` beside them.
///
/// Mount it in any Hummingbird application with ``addRoutes(to:)``; `kf serve` is an application
/// with nothing else in it. The server fetches origins through `manager` (its downloader is set
/// to the configured size limit and timeout, with redirects off) and keeps rendered images in
/// memory and in the manager's disk cache. Call ``shutdown()`` (or run ``service``) when done.
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

    /// A server with `configuration` fetching through `manager`.
    ///
    /// The manager's downloader is changed: its maximum response size and timeout become the
    /// configured limits and it stops following redirects (a redirect could lead past the allow-list).
    public init(configuration: ImageServerConfiguration, manager: KingfisherManager, logger: Logger = Logger(label: "kf.serve")) {
        self.configuration = configuration
        self.manager = manager
        self.logger = logger
        let metrics = ServerMetrics()
        self.metrics = metrics
        let downloader = manager.downloader
        downloader.maximumResponseSize = configuration.limits.maxSourceBytes
        downloader.downloadTimeout = configuration.limits.upstreamTimeout
        downloader.maximumRedirects = 0
        self.pipeline = RenditionPipeline(
            manager: manager, limits: configuration.limits, memoryLimit: configuration.renditionMemoryLimit, metrics: metrics)
        self.signer = configuration.signingKey.map { URLSigner(key: $0) }
        self.addressGuard = AddressGuard(
            allowPrivateAddresses: configuration.allowPrivateAddresses, allowedAddresses: configuration.allowedAddresses)
    }

    /// Adds `GET /{signature}/{format}/{spec}/{source}` (see ``ImagePath``), `GET /health` and
    /// `GET /metrics` to `router`, relative to wherever the router is mounted, and the demo page
    /// at `GET /` when ``ImageServerConfiguration/demoSamples`` is set.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("health") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: "ok\n")))
        }
        router.get("metrics") { [metrics] _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        router.get(":signature/:format/:spec/:source") { [self] request, context in
            await respond(to: request, parameters: context.parameters)
        }
        if let samples = configuration.demoSamples {
            addDemoRoutes(to: router, samples: samples)
        }
    }

    /// The path to request for `source` processed by `spec` in `format`, signed with the server's key.
    public func path(for source: URL, spec: String, format: OutputFormat) -> String {
        ImagePath(source: source, spec: spec, format: format, signer: signer).path
    }

    /// Stops the downloader; later origin fetches fail.
    public func shutdown() async {
        try? await manager.downloader.shutdown()
    }

    /// Answers one image request, logging it and recording its metrics; never throws.
    func respond(to request: Request, parameters: Parameters) async -> Response {
        let start = ContinuousClock.now
        metrics.requestStarted()
        var tier: CacheTier?
        var reason: String?
        let response: Response
        do {
            (response, tier) = try await imageResponse(to: request, parameters: parameters)
        } catch {
            let failure = error as? ImageServerError ?? ImageServerError(.internalServerError, "\(error)")
            reason = failure.reason
            response = failure.response()
        }
        let elapsed = ContinuousClock.now - start
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        metrics.recordRequest(status: Int(response.status.code), nanoseconds: nanoseconds)
        RequestLog.write(
            to: logger, request: request, status: Int(response.status.code),
            bytes: response.body.contentLength ?? 0, nanoseconds: nanoseconds, tier: tier, reason: reason)
        return response
    }
}
