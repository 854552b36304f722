import CoreMetrics
import Foundation
import Prometheus
import KingfisherSynchronization

/// The server's metrics, kept in its own Prometheus registry and written out by `/metrics`.
///
/// Nothing is bootstrapped globally, so several servers (or tests) in one process keep separate
/// figures. Names: `kf_serve_requests_total{route,status,grammar}` (every answered request; `route`
/// is `image`, `health`, `metrics`, `demo` or `unmatched`; `grammar` is the URL grammar of an image
/// request, `native`, `thumbor` or `imgproxy`, and `none` for the other routes), `kf_serve_request_duration_seconds`
/// (histogram of image requests), `kf_serve_cache_total{tier}` (`memory`, `disk`, `shared`,
/// `origin`, `revalidated`), `kf_serve_upstream_bytes_total`, `kf_serve_requests_in_flight`
/// (image requests being answered) and `kf_serve_unsupported_filters_total{filter}` (filters a URL
/// named that its grammar knows and the server does not apply, by name). With a replica name, every one of them also carries the
/// label `replica="NAME"` (Prometheus keeps `instance` for the scrape target).
public final class ServerMetrics: Sendable {
    /// The registry the metrics live in.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let duration: CoreMetrics.Timer
    private let upstreamBytes: CoreMetrics.Counter
    private let inFlightGauge: CoreMetrics.Gauge
    private let inFlight = Atomic<Int>(0)
    private let requestCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let filterCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let tierCounters: [CacheTier: CoreMetrics.Counter]
    /// The labels every metric carries: `replica`, when named.
    private let common: [(String, String)]

    /// Metrics in a new registry, each labelled `replica="NAME"` when `replica` is given.
    public init(replica: String? = nil) {
        let common = replica.map { [("replica", $0)] } ?? []
        self.common = common
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        self.duration = CoreMetrics.Timer(label: "kf_serve_request_duration_seconds", dimensions: common, factory: factory)
        self.upstreamBytes = CoreMetrics.Counter(label: "kf_serve_upstream_bytes_total", dimensions: common, factory: factory)
        self.inFlightGauge = CoreMetrics.Gauge(label: "kf_serve_requests_in_flight", dimensions: common, factory: factory)
        var tiers: [CacheTier: CoreMetrics.Counter] = [:]
        for tier in CacheTier.allCases {
            tiers[tier] = CoreMetrics.Counter(label: "kf_serve_cache_total", dimensions: [("tier", tier.rawValue)] + common, factory: factory)
        }
        self.tierCounters = tiers
    }

    /// Counts an image request that started; ``requestEnded()`` ends it.
    func requestStarted() {
        let now = inFlight.wrappingAdd(1, ordering: .relaxed).newValue
        inFlightGauge.record(now)
    }

    /// Counts an image request that ended.
    func requestEnded() {
        inFlightGauge.record(inFlight.wrappingSubtract(1, ordering: .relaxed).newValue)
    }

    /// Records one answered request; the duration of image requests goes to the histogram.
    func recordRequest(route: ServerRoute, status: Int, nanoseconds: Int64, grammar: String? = nil) {
        let grammar = grammar ?? "none"
        let counter = requestCounters.withLock { counters -> CoreMetrics.Counter in
            let key = "\(route.rawValue) \(status) \(grammar)"
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "kf_serve_requests_total",
                dimensions: [("route", route.rawValue), ("status", String(status)), ("grammar", grammar)] + common,
                factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
        if route == .image { duration.recordNanoseconds(nanoseconds) }
    }

    /// Counts a filter a URL named that the server does not apply.
    func recordUnsupportedFilter(_ name: String) {
        let counter = filterCounters.withLock { counters -> CoreMetrics.Counter in
            if let counter = counters[name] { return counter }
            let counter = CoreMetrics.Counter(label: "kf_serve_unsupported_filters_total",
                                              dimensions: [("filter", name)] + common, factory: factory)
            counters[name] = counter
            return counter
        }
        counter.increment()
    }

    /// Records where a rendition came from.
    func recordCache(_ tier: CacheTier) {
        tierCounters[tier]?.increment()
    }

    /// Records bytes received from origins.
    func recordUpstream(bytes: Int64) {
        guard bytes > 0 else { return }
        upstreamBytes.increment(by: Int(clamping: bytes))
    }

    /// The metrics in Prometheus' text format.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}

/// Where a rendition came from.
public enum CacheTier: String, Sendable, Hashable, CaseIterable {
    /// The server's memory of rendered images.
    case memory
    /// The disk cache.
    case disk
    /// Another request's job for the same rendition, which this one waited for.
    case shared
    /// Fetched from the origin and processed.
    case origin
    /// Made from the original kept on disk, without fetching it again.
    case original
    /// An expired disk entry the origin confirmed with `304 Not Modified`.
    case revalidated
}
