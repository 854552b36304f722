import ArgumentParser
import Foundation
import Hummingbird
import Kingfisher
import KingfisherServer
import Logging
import KingfisherSynchronization

/// `kf serve [--port N] --key KEY --allow-host HOST...`: runs the image server until SIGTERM or SIGINT.
struct ServeRunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the image server (the default: 'kf serve --port N ...').",
        discussion: """
        Every request must be signed with the key (--key or $KF_SERVE_KEY) unless \
        --insecure-unsigned is given. Only sources named by --allow-host are fetched, and never \
        from loopback, private, link-local or metadata addresses unless --allow-address or \
        --allow-private-addresses allows them. --thumbor PREFIX and --imgproxy PREFIX answer \
        those servers' URLs too; with --s3-region, --s3-endpoint, --thumbor-s3-bucket or \
        IMGPROXY_USE_S3=true their sources are also read from S3, signed with the AWS credentials \
        of the environment or ~/.aws/credentials. GET /health answers 'ok', GET /metrics the \
        Prometheus metrics; another path is 404 and another method 405, with the reason in the \
        body as for every refusal. Each request is one log line, naming the instance and the \
        client (read from Forwarded or X-Forwarded-For only when the peer is a --trusted-proxy); \
        every response carries 'X-Kf-Replica: NAME' and every metric the label replica="NAME".

        'kf serve sign' prints the signed path of a source; 'kf help serve' describes the \
        paths the server answers.

        SIGTERM or SIGINT starts a drain: /health and /healthcheck answer 503 'draining' at \
        once while every other request is still served for --drain-seconds (3 by default), so a \
        load balancer polling /health stops sending requests before the port closes; then the \
        server stops accepting, finishes the requests in flight and exits with 0. A second \
        SIGTERM or SIGINT ends the wait at once. The drain's start and end are logged.

        Exit status 0 after a signal, 1 when the server cannot start (e.g. the port is in use), \
        2 on a usage error.
        """,
        helpNames: [.short, .long]
    )

    @Option(help: "The port to listen on (default: $KF_SERVE_PORT, else 8080; 0: any free port, printed on start).")
    var port: Int?

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The signing key (default: $KF_SERVE_KEY).")
    var key: String?

    @Flag(help: "Also serve unsigned paths (signature segment 'unsafe').")
    var insecureUnsigned = false

    @Option(name: .customLong("allow-host"), help: ArgumentHelp(
        "A source host (cdn.example.com, *.example.com) or URL prefix (https://example.com/img/) to fetch from; "
            + "repeatable, or several separated by commas (default: $KF_SERVE_ALLOW_HOSTS, likewise).",
        valueName: "HOST"))
    var allowedSources: [String] = []

    @Option(name: .customLong("allow-address"), help: ArgumentHelp(
        "An internal address or range to fetch from anyway, IPv4 or IPv6 with an optional /BITS "
            + "(127.0.0.1, 10.0.0.0/8, fd00::/8); repeatable, or several separated by commas.",
        valueName: "ADDRESS[/BITS]"))
    var allowedAddresses: [String] = []

    @Flag(help: "Fetch from loopback, private, link-local and metadata addresses too.")
    var allowPrivateAddresses = false

    @Option(help: "The largest source, in bytes.")
    var maxSourceBytes: Int64 = ImageServerLimits().maxSourceBytes

    @Option(help: "The most pixels in one frame.")
    var maxPixels: Int = ImageServerLimits().maxPixelsPerFrame

    @Option(help: "The most frames of an animation.")
    var maxFrames: Int = ImageServerLimits().maxFrames

    @Option(help: "Seconds without a byte from the origin before 504.")
    var upstreamTimeout: Double = ImageServerLimits().upstreamTimeout

    @Option(help: "Seconds a fetch-and-process job may take before 504.")
    var processingTimeout: Double = ImageServerLimits().processingTimeout

    @Option(help: "Jobs fetching or processing at once (default: twice the number of cores, since a job waits on its origin part of the time).")
    var maxJobs: Int?

    @Option(help: "Jobs waiting for a slot before 503.")
    var maxQueue: Int = ImageServerLimits().maxQueuedJobs

    @Option(help: "The max-age of Cache-Control, in seconds.")
    var maxAge: Int = 86_400

    @Option(help: "Memory for rendered images, in MB (the disk cache and the page cache hold the rest).")
    var memoryMB: Int = 16

    @Option(name: .customLong("cache-dir"), help: ArgumentHelp(
        "The folder that holds the cache folder (default: $XDG_CACHE_HOME or ~/.cache); several servers may share it.",
        valueName: "DIR"))
    var cacheDirectory: String?

    @Flag(help: "Serve the demo page at / (it signs any allowed source for anyone: trusted networks only).")
    var demo = false

    @Option(name: .customLong("demo-sample"), help: ArgumentHelp("A sample source offered by the demo page; repeatable.", valueName: "URL"))
    var demoSamples: [String] = []

    @Option(help: ArgumentHelp(
"AVIF encoder speed, 0 (slowest, smallest) to 10 (fastest); the default is faster than libavif's 6, as "
            + "the first client of each rendition waits for the encoder, which took 2.5 s at speed 6 "
            + "against 0.15 s at speed 8 for a 1260×1920 image, for a file 30% larger.",
        valueName: "N"))
    var avifSpeed: Int = ImageServerConfiguration.defaultAVIFSpeed

    @OptionGroup(title: "Other URL grammars")
    var grammars: ServeGrammarOptions

    @OptionGroup(title: "S3 sources")
    var s3: ServeS3Options

    @Option(help: "Redirects followed from an origin, each hop checked against --allow-host and the address rules (0: none).")
    var maxRedirects: Int = 5

    @Flag(inversion: .prefixedNo, help: "Keep fetched originals on disk, so other sizes of an image do not fetch it again.")
    var keepOriginals = true

    @Option(help: "The quality of lossy images when a request names none, 1...100.")
    var quality: Int = 85

    @Option(help: "The log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    @Option(help: ArgumentHelp(
        "Seconds /health answers 503 while requests are still served, after SIGTERM or SIGINT and before the listener closes.",
        valueName: "N"))
    var drainSeconds: Double = 3

    @Option(help: ArgumentHelp(
        "This replica's name in log lines (instance=NAME), metrics (replica=\"NAME\") and the X-Kf-Replica header "
            + "(default: the host name); letters, digits, '.', '-', '_' and ':'.",
        valueName: "NAME"))
    var instance: String?

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "A load balancer or proxy (IPv4 or IPv6, with an optional /BITS) whose Forwarded or X-Forwarded-For header "
            + "names the client in the log; repeatable. From other peers those headers are ignored.",
        valueName: "ADDRESS[/BITS]"))
    var trustedProxies: [String] = []

    func run() throws {
        let configuration = try makeConfiguration()
        let port = try listeningPort()
        guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
            throw CLIError.usage("--log-level must be trace, debug, info, notice, warning, error or critical")
        }
        let parent = cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let cache = try about(cacheDirectory ?? "cache") { try ImageCache(name: "serve", cacheDirectoryURL: parent) }
        // Rendered images are kept encoded by the server; a decoded copy would only take memory.
        cache.memoryStorage.config.totalCostLimit = 0
        let downloader = ImageDownloader(name: "kf-serve", maxConnectionsPerHost: 16)
        var logger = Logger(label: "kf.serve")
        logger.logLevel = level
        let server = ImageServer(
            configuration: configuration, manager: KingfisherManager(downloader: downloader, cache: cache), logger: logger)
        let listening = Atomic<Bool>(false)
        let app = server.makeApplication(host: host, port: port) { [host] bound in
            listening.store(true, ordering: .sequentiallyConsistent)
            // Scripts read the bound port from this line (with --port 0 it is chosen by the system).
            FileHandle.standardOutput.write(Data("kf serve: listening on http://\(host):\(bound)\n".utf8))
        }
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let drain = Duration.milliseconds(Int64((drainSeconds * 1000).rounded()))
        Task {
            do { try await server.run(app, drainingFor: drain) } catch { failure.withLock { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) {
            if !listening.load(ordering: .sequentiallyConsistent) {
                throw CLIError.failure(Self.listenFailure(error, host: host, port: port))
            }
            throw CLIError.failure("the server stopped: \(ErrorText.reason(of: error, verbose: false))")
        }
    }

    /// A server that could not start, in one line naming the address:
    /// `could not listen on 127.0.0.1:8080: the address is already in use`.
    static func listenFailure(_ error: any Error, host: String, port: Int) -> String {
        var failure = NetworkFailure(listening: error) ?? NetworkFailure(error)
        failure?.stage = .listening
        guard let failure else { return "could not listen on \(host):\(port): \(ErrorText.reason(of: error, verbose: false))" }
        return failure.description(host: host, port: port)
    }

    private func makeConfiguration() throws -> ImageServerConfiguration {
        let key = serveKey(key)
        let environment = ProcessInfo.processInfo.environment
        let mounts = try grammars.mounts(insecureUnsigned: insecureUnsigned, environment: environment,
                                         thumborS3Loader: s3.thumborLoader)
        if s3.thumborS3Bucket != nil, grammars.thumbor == nil {
            throw CLIError.usage("--thumbor-s3-bucket needs --thumbor PREFIX")
        }
        let s3Configuration = try s3.configuration(mounts: mounts, environment: environment)
        guard key != nil || insecureUnsigned || mounts.contains(where: { $0.prefix == "/" }) else {
            throw CLIError.usage("a signing key is needed: --key KEY or KF_SERVE_KEY (or --insecure-unsigned)")
        }
        var allowedSources = Self.commaSeparated(allowedSources)
        if allowedSources.isEmpty, let hosts = ProcessInfo.processInfo.environment["KF_SERVE_ALLOW_HOSTS"] {
            allowedSources = Self.commaSeparated([hosts])
        }
        guard !allowedSources.isEmpty || s3Configuration != nil else {
            throw CLIError.usage("no source is allowed: give --allow-host HOST (a host name or URL prefix)")
        }
        guard (0...10).contains(avifSpeed) else { throw CLIError.usage("--avif-speed must be 0...10; got \(avifSpeed)") }
        guard (1...100).contains(quality) else { throw CLIError.usage("--quality must be 1...100; got \(quality)") }
        guard maxRedirects >= 0 else { throw CLIError.usage("--max-redirects must be 0 or more; got \(maxRedirects)") }
        guard drainSeconds.isFinite, (0...3600).contains(drainSeconds) else {
            throw CLIError.usage("--drain-seconds must be 0...3600; got \(drainSeconds)")
        }
        let instanceName = instance ?? Self.hostInstanceName()
        guard ImageServerConfiguration.isValidInstanceName(instanceName) else {
            throw CLIError.usage("--instance must be 1 to 253 letters, digits, '.', '-', '_' or ':'; got '\(instanceName)'")
        }
        let addresses = Self.commaSeparated(allowedAddresses)
        for text in addresses where AddressRange(text) == nil {
            throw CLIError.usage("--allow-address \(text): not an IPv4 or IPv6 address with an optional /BITS")
        }
        let proxies = try trustedProxies.map { text in
            guard let range = AddressRange(text) else {
                throw CLIError.usage("--trusted-proxy \(text): not an IPv4 or IPv6 address with an optional /BITS")
            }
            return range
        }
        let limits = ImageServerLimits(
            maxSourceBytes: maxSourceBytes, maxPixelsPerFrame: maxPixels, maxFrames: maxFrames,
            upstreamTimeout: upstreamTimeout, processingTimeout: processingTimeout,
            maxConcurrentJobs: maxJobs ?? 2 * ProcessInfo.processInfo.activeProcessorCount, maxQueuedJobs: maxQueue)
        return ImageServerConfiguration(
            signingKey: key.map { Data($0.utf8) }, allowsUnsigned: insecureUnsigned,
            allowedSources: SourceAllowList(allowedSources), allowPrivateAddresses: allowPrivateAddresses,
            allowedAddresses: Set(addresses), limits: limits, maxAge: maxAge,
            renditionMemoryLimit: max(0, memoryMB) * 1024 * 1024,
            demoSamples: try demo ? demoSampleURLs() : nil, avifSpeed: avifSpeed, mounts: mounts,
            maxRedirects: maxRedirects, keepsOriginals: keepOriginals, defaultQuality: Double(quality) / 100,
            instanceName: instanceName, trustedProxies: proxies, s3: s3Configuration)
    }

    /// Every value of a repeatable option, each split at commas, trimmed, empty ones dropped.
    static func commaSeparated(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The host name as an instance name: characters a name may not hold become `-`; `kf-serve`
    /// when the host has no name.
    static func hostInstanceName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "kf-serve" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = String(name.prefix(253).map { ImageServerConfiguration.isValidInstanceName(String($0)) ? $0 : "-" })
        return cleaned.isEmpty ? "kf-serve" : cleaned
    }

    /// The `--demo-sample` URLs; each must be http(s).
    private func demoSampleURLs() throws -> [URL] {
        try demoSamples.map { sample in
            guard let url = Retrieval.remoteURL(sample) else { throw CLIError.usage("--demo-sample \(sample): not an http(s) URL") }
            return url
        }
    }

    /// `--port`, else `$KF_SERVE_PORT`, else 8080.
    private func listeningPort() throws -> Int {
        let environment = ProcessInfo.processInfo.environment["KF_SERVE_PORT"]
        guard let port = port ?? environment.map({ Int($0) ?? -1 }) else { return 8080 }
        guard (0...65_535).contains(port) else {
            throw CLIError.usage("the port must be 0...65535; got \(self.port.map(String.init) ?? environment ?? "")")
        }
        return port
    }
}
