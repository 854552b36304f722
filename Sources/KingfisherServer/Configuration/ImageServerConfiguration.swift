import Foundation

/// Everything an ``ImageServer`` needs to know: its signing key, which sources it may fetch, and its limits.
///
/// The defaults are the safe ones: every request must be signed, no source is allowed until
/// ``allowedSources`` names it, and no loopback, private, link-local or metadata address is
/// fetched unless ``allowPrivateAddresses`` is set or ``allowedAddresses`` names the address.
public struct ImageServerConfiguration: Sendable {
    /// The HMAC-SHA256 key URLs are signed with; `nil` only together with ``allowsUnsigned``.
    public var signingKey: Data?
    /// Accepts the `unsafe` signature segment in place of a signature.
    public var allowsUnsigned: Bool
    /// The sources the server fetches: host names (`cdn.example.com`, `*.example.com`) or URL
    /// prefixes (`https://example.com/images/`).
    public var allowedSources: SourceAllowList
    /// Fetches from loopback, private, link-local and metadata addresses too.
    public var allowPrivateAddresses: Bool
    /// Addresses fetched even though they are loopback or private: `ADDRESS` or `ADDRESS/BITS`,
    /// IPv4 or IPv6 (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`); an entry that is neither matches nothing.
    public var allowedAddresses: Set<String>
    /// Limits on sources, images and work.
    public var limits: ImageServerLimits
    /// `max-age` of the `Cache-Control` header sent with images, in seconds.
    public var maxAge: Int
    /// The most rendered images kept in memory, in bytes.
    public var renditionMemoryLimit: Int
    /// When set, the demo page at `/` (with these sample sources) and its signer at `/demo/sign`.
    ///
    /// The signer signs any allowed source for anyone, so enable it only on trusted networks.
    public var demoSamples: [URL]?
    /// The AVIF encoder speed, 0 (slowest, smallest files) to 10 (fastest), as `avifenc --speed`
    /// counts it; the default is ``defaultAVIFSpeed``.
    public var avifSpeed: Int
    /// Other URL grammars (thumbor's, imgproxy's) and where they are served. A mount at `/`
    /// replaces the server's own grammar at the root. The prefixes are absolute paths for
    /// ``ImageServer/addRoutes(to:)``, and relative to the mount point for ``ImageServer/response(to:)``.
    public var mounts: [GrammarMount]
    /// Redirects followed from an origin, each hop checked against the allow-list and the address
    /// rules again; 0 refuses redirects.
    public var maxRedirects: Int
    /// Keeps each fetched original on disk, so other sizes of the same image are made without
    /// fetching it again.
    public var keepsOriginals: Bool
    /// The quality of lossy renditions when a request names none, 0...1.
    public var defaultQuality: Double
    /// The name of this replica among others behind a load balancer: `instance` in every log line,
    /// the `replica` label of every metric, and `X-Kf-Replica` on every response (with
    /// ``ImageServer/replicaMiddleware()``); `nil` names none. See ``isValidInstanceName(_:)``.
    public var instanceName: String?
    /// The proxies (load balancers) whose `Forwarded` and `X-Forwarded-For` headers name the client
    /// in the request log; those headers change nothing else.
    public var trustedProxies: [AddressRange]
    /// The folder whose files the server's own grammar serves as `file:` sources; `nil` serves none.
    public var localRoot: LocalFileRoot?
    /// Leaves `/metrics` to a listener of its own (``ImageServer/makeMetricsApplication(host:port:onServerRunning:)``):
    /// ``ImageServer/addRoutes(to:)`` then adds no `/metrics` route.
    public var servesMetricsSeparately: Bool
    /// Where `s3://bucket/key` sources (imgproxy's, and thumbor's S3 loader) are read; `nil`
    /// refuses them.
    public var s3: S3SourceConfiguration?

    /// The server's AVIF speed, 8, rather than libavif's default of 6: a server encodes while the
    /// client waits, and speed 6 spends seconds on a large photo.
    ///
    /// At quality 0.85 on a 2-core machine, Kingfisher's AVIF encoder took 2.5–2.8 s at speed 6
    /// and 0.14–0.17 s at speed 8 for a 1260×1920 image, whose file grew by 30% (53 KB to 68 KB);
    /// for a 640×420 one, 68 ms against 32 ms and 5% larger. Each rendition is encoded once and
    /// then cached, so the encoding time is what the first client of a rendition waits.
    public static let defaultAVIFSpeed = 8

    /// A configuration signed with `signingKey`, fetching only from `allowedSources`.
    public init(
        signingKey: Data?,
        allowsUnsigned: Bool = false,
        allowedSources: SourceAllowList,
        allowPrivateAddresses: Bool = false,
        allowedAddresses: Set<String> = [],
        limits: ImageServerLimits = ImageServerLimits(),
        maxAge: Int = 86_400,
        renditionMemoryLimit: Int = 64 * 1024 * 1024,
        demoSamples: [URL]? = nil,
        avifSpeed: Int = ImageServerConfiguration.defaultAVIFSpeed,
        mounts: [GrammarMount] = [],
        maxRedirects: Int = 5,
        keepsOriginals: Bool = true,
        defaultQuality: Double = 0.85,
        instanceName: String? = nil,
        trustedProxies: [AddressRange] = [],
        localRoot: LocalFileRoot? = nil,
        servesMetricsSeparately: Bool = false,
        s3: S3SourceConfiguration? = nil
    ) {
        self.signingKey = signingKey
        self.allowsUnsigned = allowsUnsigned
        self.allowedSources = allowedSources
        self.allowPrivateAddresses = allowPrivateAddresses
        self.allowedAddresses = allowedAddresses
        self.limits = limits
        self.maxAge = max(0, maxAge)
        self.renditionMemoryLimit = max(0, renditionMemoryLimit)
        self.demoSamples = demoSamples
        self.avifSpeed = min(max(avifSpeed, 0), 10)
        self.mounts = mounts
        self.maxRedirects = max(0, maxRedirects)
        self.keepsOriginals = keepsOriginals
        self.defaultQuality = min(max(defaultQuality, 0), 1)
        self.instanceName = instanceName.flatMap { Self.isValidInstanceName($0) ? $0 : nil }
        self.trustedProxies = trustedProxies
        self.localRoot = localRoot
        self.servesMetricsSeparately = servesMetricsSeparately
        self.s3 = s3
    }

    /// Whether `name` can name a replica: 1 to 253 letters, digits, `.`, `-`, `_` or `:`, so it
    /// is the same in a log line, a Prometheus label and an HTTP header, with nothing to escape.
    public static func isValidInstanceName(_ name: String) -> Bool {
        (1...253).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: ":"):
                true
            default:
                false
            }
        }
    }

    /// Whether a mount takes the root, so the server's own grammar is not served there.
    var rootIsMounted: Bool { mounts.contains { $0.isRoot } }
}

/// The limits an ``ImageServer`` enforces; each refusal names the limit it broke.
public struct ImageServerLimits: Sendable, Hashable {
    /// The largest source accepted, in bytes (over it: `413`).
    public var maxSourceBytes: Int64
    /// The most pixels in one frame (over it: `422`, before any pixel is allocated).
    public var maxPixelsPerFrame: Int
    /// The most frames of an animation (over it: `422`).
    public var maxFrames: Int
    /// Seconds without a byte from the origin before the fetch fails with `504`.
    public var upstreamTimeout: TimeInterval
    /// Seconds a whole job (fetch, decode, process, encode) may take before the request fails with `504`.
    public var processingTimeout: TimeInterval
    /// Jobs fetching or processing at once.
    public var maxConcurrentJobs: Int
    /// Jobs waiting for a slot; one more is refused with `503` and `Retry-After`.
    public var maxQueuedJobs: Int

    /// Limits with the defaults: 25 MB, 50 megapixels, 500 frames, 10 s upstream, 20 s per job,
    /// 2 jobs at once and 64 waiting.
    public init(
        maxSourceBytes: Int64 = 25 * 1024 * 1024,
        maxPixelsPerFrame: Int = 50_000_000,
        maxFrames: Int = 500,
        upstreamTimeout: TimeInterval = 10,
        processingTimeout: TimeInterval = 20,
        maxConcurrentJobs: Int = 2,
        maxQueuedJobs: Int = 64
    ) {
        self.maxSourceBytes = max(1, maxSourceBytes)
        self.maxPixelsPerFrame = max(1, maxPixelsPerFrame)
        self.maxFrames = max(1, maxFrames)
        self.upstreamTimeout = upstreamTimeout > 0 ? upstreamTimeout : 10
        self.processingTimeout = processingTimeout > 0 ? processingTimeout : 20
        self.maxConcurrentJobs = max(1, maxConcurrentJobs)
        self.maxQueuedJobs = max(0, maxQueuedJobs)
    }
}
