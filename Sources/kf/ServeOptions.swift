import ArgumentParser
import Foundation
import KingfisherServer

/// The options of `kf serve run` and `kf serve config`. None has a default here: the resolution
/// (``ServeResolution``) takes each from its flag, else its `KF_SERVE_*` variable, else imgproxy's
/// variables or thumbor.conf, else the default the help names, and remembers which.
struct ServeOptions: ParsableArguments {
    @Option(help: "The port to listen on; 0: any free port, printed on start (default: 8080; $KF_SERVE_PORT).")
    var port: Int?

    @Option(help: "The address to listen on (default: 127.0.0.1; $KF_SERVE_HOST).")
    var host: String?

    @Option(help: "The signing key ($KF_SERVE_KEY).")
    var key: String?

    @Flag(help: "Also serve unsigned paths (signature segment 'unsafe') ($KF_SERVE_INSECURE_UNSIGNED).")
    var insecureUnsigned = false

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "A source host (cdn.example.com, *.example.com) or URL prefix (https://example.com/img/) to fetch from; "
            + "repeatable, or several separated by commas ($KF_SERVE_ALLOW_HOSTS, likewise).",
        valueName: "HOST"))
    var allowedSources: [String] = []

    @Option(name: .customLong("allow-address"), help: ArgumentHelp(
        "An internal address or range to fetch from anyway, IPv4 or IPv6 with an optional /BITS "
            + "(127.0.0.1, 10.0.0.0/8, fd00::/8); repeatable, or several separated by commas ($KF_SERVE_ALLOW_ADDRESSES).",
        valueName: "ADDRESS[/BITS]"))
    var allowedAddresses: [String] = []

    @Flag(help: "Fetch from loopback, private, link-local and metadata addresses too ($KF_SERVE_ALLOW_PRIVATE_ADDRESSES).")
    var allowPrivateAddresses = false

    @Option(help: "The largest source, in bytes (default: 26214400; $KF_SERVE_MAX_SOURCE_BYTES).")
    var maxSourceBytes: Int64?

    @Option(help: "The most pixels in one frame (default: 50000000; $KF_SERVE_MAX_PIXELS).")
    var maxPixels: Int?

    @Option(help: "The most frames of an animation (default: 500; $KF_SERVE_MAX_FRAMES).")
    var maxFrames: Int?

    @Option(help: "Seconds without a byte from the origin before 504 (default: 10; $KF_SERVE_UPSTREAM_TIMEOUT).")
    var upstreamTimeout: Double?

    @Option(help: "Seconds a fetch-and-process job may take before 504 (default: 20; $KF_SERVE_PROCESSING_TIMEOUT).")
    var processingTimeout: Double?

    @Option(help: "Jobs fetching or processing at once (default: twice the number of cores, since a job waits on its origin part of the time; $KF_SERVE_MAX_JOBS).")
    var maxJobs: Int?

    @Option(help: "Jobs waiting for a slot before 503 (default: 64; $KF_SERVE_MAX_QUEUE).")
    var maxQueue: Int?

    @Option(help: "The max-age of Cache-Control, in seconds (default: 86400; $KF_SERVE_MAX_AGE).")
    var maxAge: Int?

    @Option(help: "Memory for rendered images, in MB; the disk cache and the page cache hold the rest (default: 16; $KF_SERVE_MEMORY_MB).")
    var memoryMB: Int?

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The folder that holds the cache folder; several servers may share it (default: $XDG_CACHE_HOME or ~/.cache; $KF_SERVE_CACHE_DIR).",
        valueName: "DIR"))
    var cacheDirectory: String?

    @Option(name: .customLong("local-root"), help: ArgumentHelp(
        "Serve 'file:PATH' sources of kf's own URLs from the files below DIR; '..', absolute paths and links "
            + "out of DIR are refused ($KF_SERVE_LOCAL_ROOT).",
        valueName: "DIR"))
    var localRoot: String?

    @Flag(help: "Serve the demo page at / (it signs any allowed source for anyone: trusted networks only) ($KF_SERVE_DEMO).")
    var demo = false

    @Option(name: .customLong("demo-sample"), help: ArgumentHelp(
        "A sample source offered by the demo page; repeatable ($KF_SERVE_DEMO_SAMPLES, comma-separated).", valueName: "URL"))
    var demoSamples: [String] = []

    @Option(help: ArgumentHelp(
        "AVIF encoder speed, 0 (slowest, smallest) to 10 (fastest); faster than libavif's 6 by default, as "
            + "the first client of each rendition waits for the encoder, which took 2.5 s at speed 6 "
            + "against 0.15 s at speed 8 for a 1260×1920 image, for a file 30% larger (default: 8; $KF_SERVE_AVIF_SPEED).",
        valueName: "N"))
    var avifSpeed: Int?

    @OptionGroup(title: "Other URL grammars")
    var grammars: ServeGrammarOptions

    @OptionGroup(title: "S3 sources")
    var s3: ServeS3Options

    @Option(help: "Redirects followed from an origin, each hop checked against --allow-host and the address rules; 0: none (default: 5; $KF_SERVE_MAX_REDIRECTS).")
    var maxRedirects: Int?

    @Flag(inversion: .prefixedNo, help: "Keep fetched originals on disk from a source's second rendition on, so later sizes do not fetch it again (default: on; $KF_SERVE_KEEP_ORIGINALS).")
    var keepOriginals: Bool?

    @Option(help: "The quality of lossy images when a request names none, 1...100 (default: 85; $KF_SERVE_QUALITY).")
    var quality: Int?

    @Option(help: "The log level: trace, debug, info, notice, warning, error or critical (default: info; $KF_SERVE_LOG_LEVEL).")
    var logLevel: String?

    @Option(help: ArgumentHelp(
        "Seconds /health answers 503 while requests are still served, after SIGTERM or SIGINT and before the listener closes (default: 3; $KF_SERVE_DRAIN_SECONDS).",
        valueName: "N"))
    var drainSeconds: Double?

    @Option(help: ArgumentHelp(
        "This replica's name in log lines (instance=NAME), metrics (replica=\"NAME\") and the X-Kf-Replica header; "
            + "letters, digits, '.', '-', '_' and ':' (default: the host name; $KF_SERVE_INSTANCE).",
        valueName: "NAME"))
    var instance: String?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "A load balancer or proxy (IPv4 or IPv6, with an optional /BITS) whose Forwarded or X-Forwarded-For header "
            + "names the client in the log; repeatable. From other peers those headers are ignored ($KF_SERVE_TRUSTED_PROXIES, comma-separated).",
        valueName: "ADDRESS[/BITS]"))
    var trustedProxies: [String] = []

    @Option(help: ArgumentHelp(
        "Serve /metrics (and /health) on this port of --host instead of the public one, which then answers no /metrics ($KF_SERVE_METRICS_PORT).",
        valueName: "PORT"))
    var metricsPort: Int?
}
