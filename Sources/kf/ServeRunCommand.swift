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
        those servers' URLs too; --local-root DIR serves 'file:PATH' sources from DIR; with --s3-region, \
        --s3-endpoint, --thumbor-s3-bucket (or their variables), thumbor-aws's loader in --thumbor-conf or \
        IMGPROXY_USE_S3=true sources are also read from S3, signed \
        with the AWS credentials of the environment or ~/.aws/credentials. GET /health \
        answers 'ok', GET /metrics the Prometheus metrics (on --metrics-port instead, when given); another path is 404 and another method 405, with the reason in the \
        body as for every refusal. Each request is one log line, naming the instance and the \
        client (read from Forwarded or X-Forwarded-For only when the peer is a --trusted-proxy); \
        every response carries 'X-Kf-Replica: NAME' and every metric the label replica="NAME".

        'kf serve sign' prints the signed path of a source; 'kf serve config' the effective \
        configuration; 'kf help serve' describes the paths the server answers.

        SIGTERM or SIGINT starts a drain: /health and /healthcheck answer 503 'draining' at \
        once while every other request is still served for --drain-seconds (3 by default), so a \
        load balancer polling /health stops sending requests before the port closes; then the \
        server stops accepting, finishes the requests in flight and exits with 0. A second \
        SIGTERM or SIGINT ends the wait at once. The drain's start and end are logged.

        Each setting comes from its flag, else its KF_SERVE_* variable (named in its help), else \
        imgproxy's variables (IMGPROXY_BIND, IMGPROXY_ALLOWED_SOURCES, IMGPROXY_MAX_SRC_RESOLUTION, \
        IMGPROXY_MAX_SRC_FILE_SIZE, IMGPROXY_TTL, ...) or the literal settings of --thumbor-conf FILE, \
        else its default. A setting recognised but not honoured is named on standard error at \
        start; a malformed value is a usage error naming it. 'kf serve config' prints the result.

        Exit status 0 after a signal, 1 when the server cannot start (e.g. the port is in use), \
        2 on a usage error.
        """,
        helpNames: [.short, .long]
    )

    @OptionGroup
    var options: ServeOptions

    func run() throws {
        let resolution = try ServeResolution(options: options, environment: ProcessInfo.processInfo.environment)
        for notice in resolution.notices { printError("kf serve: \(notice)") }
        let configuration = resolution.configuration
        let (host, port) = (resolution.host, resolution.port)
        let parent = resolution.cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
        let cache = try about(resolution.cacheDirectory ?? "cache") { try ImageCache(name: "serve", cacheDirectoryURL: parent) }
        // Rendered images are kept encoded by the server; a decoded copy would only take memory.
        cache.memoryStorage.config.totalCostLimit = 0
        let downloader = ImageDownloader(name: "kf-serve", maxConnectionsPerHost: 16)
        var logger = Logger(label: "kf.serve")
        logger.logLevel = resolution.logLevel
        let server = ImageServer(
            configuration: configuration, manager: KingfisherManager(downloader: downloader, cache: cache), logger: logger)
        let listening = Atomic<Bool>(false)
        let app = server.makeApplication(host: host, port: port) { [host] bound in
            listening.store(true, ordering: .sequentiallyConsistent)
            // Scripts read the bound port from this line (with --port 0 it is chosen by the system).
            FileHandle.standardOutput.write(Data("kf serve: listening on http://\(host):\(bound)\n".utf8))
        }
        let metrics = resolution.metricsPort.map { metricsPort in
            MetricsListener(host: host, port: metricsPort) { [host] bound in
                FileHandle.standardOutput.write(Data("kf serve: metrics on http://\(host):\(bound)/metrics\n".utf8))
            }
        }
        let failure = Mutex<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let drain = Duration.milliseconds(Int64((resolution.drainSeconds * 1000).rounded()))
        Task {
            do { try await server.run(app, metrics: metrics, drainingFor: drain) } catch { failure.withLock { $0 = error } }
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

    /// The host name as an instance name: characters a name may not hold become `-`; `kf-serve`
    /// when the host has no name.
    static func hostInstanceName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "kf-serve" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let cleaned = String(name.prefix(253).map { ImageServerConfiguration.isValidInstanceName(String($0)) ? $0 : "-" })
        return cleaned.isEmpty ? "kf-serve" : cleaned
    }
}
