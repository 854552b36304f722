import Foundation
import Kingfisher
import KingfisherServer
import Logging

/// `kf serve`'s effective configuration: each setting from its flag, else its `KF_SERVE_*`
/// variable, else imgproxy's variables or thumbor.conf, else its default, with where it came from.
struct ServeResolution {
    var configuration: ImageServerConfiguration
    var host: String
    var port: Int
    var metricsPort: Int?
    var logLevel: Logger.Level
    var cacheDirectory: String?
    var drainSeconds: Double
    /// `kf serve config`'s lines.
    var report: [ReportLine]
    /// One line for each setting recognised but not honoured.
    var notices: [String]

    init(options: ServeOptions, environment: [String: String]) throws {
        var resolver = Resolver(environment: environment)
        let grammars = options.grammars
        let thumborMount = try resolver.string("thumbor", flag: grammars.thumbor)
        let imgproxyMount = try resolver.string("imgproxy", flag: grammars.imgproxy)
        let imgproxy = try ImgproxyImport(environment: environment, mountsImgproxy: imgproxyMount != nil)
        resolver.imported.merge(imgproxy.values) { $1 }
        var notices = imgproxy.notices
        let thumborConf = try resolver.string("thumbor-conf", flag: grammars.thumborConf)
        var thumbor: ThumborImport?
        if let thumborConf {
            let file = try ThumborImport(path: thumborConf, mountsThumbor: thumborMount != nil)
            // imgproxy's variables come before the file, as variables come before files.
            for (setting, value) in file.values.sorted(by: { $0.key < $1.key }) {
                if let winner = resolver.imported[setting] {
                    notices.append("\(value.origin) is overridden by \(winner.origin) for \(setting); not read")
                }
            }
            resolver.imported.merge(file.values) { current, _ in current }
            notices += file.notices
            thumbor = file
        }

        host = try resolver.string("host", flag: options.host, shownDefault: "127.0.0.1") ?? "127.0.0.1"
        port = try resolver.int("port", flag: options.port, range: 0...65_535, default: 8080)
        metricsPort = try resolver.optionalInt("metrics-port", flag: options.metricsPort, range: 0...65_535)
        let key = try resolver.secret("key", flag: options.key.flatMap { $0.isEmpty ? nil : $0 })
        let insecure = try resolver.bool("insecure-unsigned", flag: options.insecureUnsigned ? true : nil, default: false)
        let (allowedSources, sourceSettings) = try resolver.allowList(flag: options.allowedSources)
        let addresses = try resolver.list("allow-address", flag: options.allowedAddresses)
        for text in addresses where AddressRange(text) == nil {
            throw CLIError.usage("--allow-address \(text): not an IPv4 or IPv6 address with an optional /BITS")
        }
        let allowPrivate = try resolver.bool("allow-private-addresses", flag: options.allowPrivateAddresses ? true : nil, default: false)
        let defaults = ImageServerLimits()
        let maxSourceBytes = try resolver.int64("max-source-bytes", flag: options.maxSourceBytes, default: defaults.maxSourceBytes)
        let maxPixels = try resolver.int("max-pixels", flag: options.maxPixels, range: 1...Int.max, default: defaults.maxPixelsPerFrame)
        let maxFrames = try resolver.int("max-frames", flag: options.maxFrames, range: 1...Int.max, default: defaults.maxFrames)
        let upstreamTimeout = try resolver.seconds("upstream-timeout", flag: options.upstreamTimeout, default: defaults.upstreamTimeout)
        let processingTimeout = try resolver.seconds("processing-timeout", flag: options.processingTimeout, default: defaults.processingTimeout)
        let maxJobs = try resolver.int("max-jobs", flag: options.maxJobs, range: 1...Int.max,
                                       default: 2 * ProcessInfo.processInfo.activeProcessorCount)
        let maxQueue = try resolver.int("max-queue", flag: options.maxQueue, range: 0...Int.max, default: defaults.maxQueuedJobs)
        let maxAge = try resolver.int("max-age", flag: options.maxAge, range: 0...Int.max, default: 86_400)
        let memoryMB = try resolver.int("memory-mb", flag: options.memoryMB, range: 0...1_048_576, default: 16)
        cacheDirectory = try resolver.string("cache-dir", flag: options.cacheDirectory,
                                             shownDefault: environment["XDG_CACHE_HOME"].map { _ in "$XDG_CACHE_HOME" } ?? "~/.cache")
        let localRootPath = try resolver.string("local-root", flag: options.localRoot)
        let demo = try resolver.bool("demo", flag: options.demo ? true : nil, default: false)
        let demoSamples = try resolver.list("demo-sample", flag: options.demoSamples)
        let avifSpeed = try resolver.int("avif-speed", flag: options.avifSpeed, range: 0...10, default: ImageServerConfiguration.defaultAVIFSpeed)
        let maxRedirects = try resolver.int("max-redirects", flag: options.maxRedirects, range: 0...100, default: 5)
        let keepOriginals = try resolver.bool("keep-originals", flag: options.keepOriginals, default: true)
        let quality = try resolver.int("quality", flag: options.quality, range: 1...100, default: 85)
        let levelText = try resolver.string("log-level", flag: options.logLevel, shownDefault: "info") ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw CLIError.usage("--log-level must be trace, debug, info, notice, warning, error or critical; got '\(levelText)'")
        }
        logLevel = level
        drainSeconds = try resolver.seconds("drain-seconds", flag: options.drainSeconds, default: 3, allowsZero: true, maximum: 3600)
        let hostName = ServeRunCommand.hostInstanceName()
        let instanceName = try resolver.string("instance", flag: options.instance, shownDefault: hostName) ?? hostName
        guard ImageServerConfiguration.isValidInstanceName(instanceName) else {
            throw CLIError.usage("--instance must be 1 to 253 letters, digits, '.', '-', '_' or ':'; got '\(instanceName)'")
        }
        let proxies = try resolver.list("trusted-proxy", flag: options.trustedProxies).map { text in
            guard let range = AddressRange(text) else {
                throw CLIError.usage("--trusted-proxy \(text): not an IPv4 or IPv6 address with an optional /BITS")
            }
            return range
        }
        let localRoot = try localRootPath.map { try Self.root($0, setting: "--local-root") }

        let thumborS3Loader = try ServeS3Resolution.thumborLoader(
            options.s3, resolver: &resolver, thumbor: thumbor, thumborConf: thumborConf, mountsThumbor: thumborMount != nil)

        // The grammars.
        var mounts: [GrammarMount] = []
        if let thumborMount {
            let thumborKey = try resolver.secret("thumbor-key", flag: grammars.thumborKey, alsoVariable: "THUMBOR_SECURITY_KEY")
            let allowsUnsafe = insecure || (!resolver.isExplicit("insecure-unsigned") && thumbor?.allowsUnsafe == true)
            if let thumbor, let allows = thumbor.allowsUnsafe {
                resolver.report.append(ReportLine(setting: "thumbor ALLOW_UNSAFE_URL", value: allows ? "True" : "False",
                                                  origin: resolver.isExplicit("insecure-unsigned")
                                                    ? "overridden by insecure-unsigned" : "file \(thumborConf ?? ""): ALLOW_UNSAFE_URL"))
            }
            guard thumborKey != nil || allowsUnsafe else {
                throw CLIError.usage("--thumbor needs a key: --thumbor-key KEY, THUMBOR_SECURITY_KEY or SECURITY_KEY in --thumbor-conf (or --insecure-unsigned)")
            }
            let settings = thumbor?.settings ?? ThumborSettings()
            resolver.report += thumbor?.report ?? []
            let fileRoot: LocalFileRoot?
            if settings.loader != .http {
                guard let path = thumbor?.fileLoaderRoot else {
                    throw CLIError.usage("--thumbor-conf \(thumborConf ?? ""): LOADER = '\(settings.loader.rawValue)' needs FILE_LOADER_ROOT_PATH")
                }
                fileRoot = try Self.root(path, setting: "FILE_LOADER_ROOT_PATH")
            } else {
                fileRoot = nil
            }
            let autoWebP = try resolver.bool("thumbor-auto-webp", flag: grammars.thumborAutoWebp ? true : nil, default: false)
            let autoAVIF = try resolver.bool("thumbor-auto-avif", flag: grammars.thumborAutoAvif ? true : nil, default: false)
            let strictFilters = try resolver.bool("strict-filters", flag: grammars.strictFilters ? true : nil, default: false)
            mounts.append(GrammarMount(prefix: thumborMount, grammar: ThumborGrammar(
                securityKey: thumborKey.map { Data($0.utf8) }, allowsUnsafe: allowsUnsafe, settings: settings, localRoot: fileRoot,
                autoWebP: autoWebP, autoAVIF: autoAVIF, strictFilters: strictFilters, s3Loader: thumborS3Loader)))
        } else if grammars.thumborKey != nil {
            notices.append("--thumbor-key is read only with --thumbor PREFIX; not read")
        }
        if let imgproxyMount {
            var variables = environment
            if let value = try resolver.secret("imgproxy-key", flag: grammars.imgproxyKey) { variables["IMGPROXY_KEY"] = value }
            if let value = try resolver.secret("imgproxy-salt", flag: grammars.imgproxySalt) { variables["IMGPROXY_SALT"] = value }
            var configuration: ImgproxyConfiguration
            do {
                configuration = try ImgproxyConfiguration(environment: variables)
            } catch {
                throw CLIError.usage("imgproxy's configuration: \(error)")
            }
            // --max-age or KF_SERVE_MAX_AGE outranks IMGPROXY_TTL for imgproxy's URLs too.
            if resolver.isExplicit("max-age") { configuration.ttl = maxAge }
            guard configuration.signsURLs || insecure else {
                throw CLIError.usage("--imgproxy needs a key and salt: IMGPROXY_KEY and IMGPROXY_SALT, or --imgproxy-key and --imgproxy-salt (or --insecure-unsigned)")
            }
            let root = try imgproxy.localRoot.map { try Self.root($0, setting: "IMGPROXY_LOCAL_FILESYSTEM_ROOT") }
            if let path = imgproxy.localRoot {
                resolver.report.append(ReportLine(setting: "imgproxy local root", value: path, origin: "variable IMGPROXY_LOCAL_FILESYSTEM_ROOT"))
            }
            resolver.report.append(ReportLine(setting: "imgproxy max-age", value: String(configuration.ttl),
                                              origin: resolver.isExplicit("max-age") ? "max-age"
                                                : environment["IMGPROXY_TTL"].map { _ in "variable IMGPROXY_TTL" } ?? "imgproxy's default"))
            mounts.append(GrammarMount(prefix: imgproxyMount, grammar: ImgproxyGrammar(
                configuration: configuration, allowsUnsigned: insecure, localRoot: root)))
        }
        let prefixes = mounts.map(\.prefix)
        guard Set(prefixes).count == prefixes.count else {
            throw CLIError.usage("--thumbor and --imgproxy need different prefixes: both signatures are a free first segment")
        }
        guard key != nil || insecure || mounts.contains(where: { $0.prefix == "/" }) else {
            throw CLIError.usage("a signing key is needed: --key KEY or KF_SERVE_KEY (or --insecure-unsigned)")
        }
        let s3Configuration = try ServeS3Resolution.configuration(
            options.s3, resolver: &resolver, mounts: mounts, thumborLoader: thumborS3Loader, environment: environment, notices: &notices)
        guard !allowedSources.isEmpty || localRoot != nil || s3Configuration != nil
                || mounts.contains(where: { $0.grammar.localRoot != nil }) else {
            throw CLIError.usage("no source is allowed: give --allow-host HOST (a host name or URL prefix)")
        }
        if let metricsPort, metricsPort != 0, metricsPort == port {
            throw CLIError.usage("--metrics-port must differ from --port; both are \(port)")
        }
        let samples = try demo ? demoSamples.map { sample in
            guard let url = Retrieval.remoteURL(sample) else { throw CLIError.usage("--demo-sample \(sample): not an http(s) URL") }
            return url
        } : nil

        let limits = ImageServerLimits(
            maxSourceBytes: maxSourceBytes, maxPixelsPerFrame: maxPixels, maxFrames: maxFrames,
            upstreamTimeout: upstreamTimeout, processingTimeout: processingTimeout,
            maxConcurrentJobs: maxJobs, maxQueuedJobs: maxQueue)
        configuration = ImageServerConfiguration(
            signingKey: key.map { Data($0.utf8) }, allowsUnsigned: insecure,
            allowedSources: SourceAllowList(rules: allowedSources, settings: sourceSettings), allowPrivateAddresses: allowPrivate,
            allowedAddresses: Set(addresses), limits: limits, maxAge: maxAge,
            renditionMemoryLimit: memoryMB * 1024 * 1024,
            demoSamples: samples, avifSpeed: avifSpeed, mounts: mounts,
            maxRedirects: maxRedirects, keepsOriginals: keepOriginals, defaultQuality: Double(quality) / 100,
            instanceName: instanceName, trustedProxies: proxies, localRoot: localRoot,
            servesMetricsSeparately: metricsPort != nil, s3: s3Configuration)
        report = resolver.orderedReport
        self.notices = notices
    }

    /// The folder `path` as a local root named by `setting`; a usage error when it is not a folder.
    static func root(_ path: String, setting: String) throws -> LocalFileRoot {
        do {
            return try LocalFileRoot(path: path, setting: setting)
        } catch let error as ImageServerError {
            throw CLIError.usage(error.reason)
        }
    }
}
