import Foundation
import KingfisherServer

/// imgproxy's variables, as `kf serve` reads them: those that map onto its settings, those its
/// imgproxy grammar reads, and the rest, each named on standard error once.
struct ImgproxyImport {
    /// Values for `kf serve` settings, by flag name.
    var values: [String: ImportedValue] = [:]
    /// One line for each variable set but not read.
    var notices: [String] = []
    /// `IMGPROXY_LOCAL_FILESYSTEM_ROOT`, for the imgproxy grammar.
    var localRoot: String?

    /// The variables the imgproxy grammar reads itself (``ImgproxyConfiguration``): read only with `--imgproxy`.
    static let grammarVariables: Set<String> = [
        "IMGPROXY_KEY", "IMGPROXY_SALT", "IMGPROXY_SIGNATURE_SIZE", "IMGPROXY_TRUSTED_SIGNATURES", "IMGPROXY_PRESETS",
        "IMGPROXY_PRESETS_SEPARATOR", "IMGPROXY_ONLY_PRESETS", "IMGPROXY_BASE_URL", "IMGPROXY_QUALITY", "IMGPROXY_FORMAT_QUALITY",
        "IMGPROXY_AUTO_WEBP", "IMGPROXY_ENFORCE_WEBP", "IMGPROXY_AUTO_AVIF", "IMGPROXY_ENFORCE_AVIF",
        "IMGPROXY_ENABLE_WEBP_DETECTION", "IMGPROXY_ENABLE_AVIF_DETECTION", "IMGPROXY_LOCAL_FILESYSTEM_ROOT",
        "IMGPROXY_WATERMARK_DATA", "IMGPROXY_WATERMARK_PATH", "IMGPROXY_WATERMARK_URL", "IMGPROXY_WATERMARK_OPACITY",
        "IMGPROXY_USE_S3", "IMGPROXY_S3_REGION", "IMGPROXY_S3_ENDPOINT", "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE",
        "IMGPROXY_S3_ALLOWED_BUCKETS", "IMGPROXY_S3_DENIED_BUCKETS",
    ]

    /// The variables mapped onto `kf serve` settings: those ``ServeSetting/all`` names, but the
    /// grammar's own (IMGPROXY_BIND, _ALLOWED_SOURCES, _MAX_SRC_RESOLUTION, _MAX_SRC_FILE_SIZE,
    /// _TTL, _PROMETHEUS_BIND).
    static let mappedVariables = Set(ServeSetting.all.flatMap(\.imgproxy)).subtracting(grammarVariables)

    /// imgproxy settings `kf serve` knows and does not honour, with the reason.
    static let unsupported: [String: String] = [
        "IMGPROXY_NETWORK": "kf serve listens on TCP only",
        "IMGPROXY_PATH_PREFIX": "the prefix is --imgproxy PREFIX",
        "IMGPROXY_WORKERS": "use --max-jobs",
        "IMGPROXY_CONCURRENCY": "use --max-jobs",
        "IMGPROXY_REQUESTS_QUEUE_SIZE": "use --max-queue",
        "IMGPROXY_MAX_CLIENTS": "kf serve does not limit connections",
        "IMGPROXY_TIMEOUT": "use --processing-timeout",
        "IMGPROXY_READ_REQUEST_TIMEOUT": "kf serve's HTTP server keeps its own timeouts",
        "IMGPROXY_KEEP_ALIVE_TIMEOUT": "kf serve's HTTP server keeps its own timeouts",
        "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "use --drain-seconds",
        "IMGPROXY_DOWNLOAD_TIMEOUT": "imgproxy bounds the whole download; use --upstream-timeout (seconds without a byte)",
        "IMGPROXY_MAX_REDIRECTS": "use --max-redirects",
        "IMGPROXY_SECRET": "kf serve checks no Authorization header",
        "IMGPROXY_ALLOW_ORIGIN": "kf serve sends no CORS headers",
        "IMGPROXY_MAX_ANIMATION_FRAMES": "kf serve keeps every frame up to --max-frames",
        "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "use --max-pixels",
        "IMGPROXY_MAX_RESULT_DIMENSION": "output is bounded by --max-pixels",
        "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "use --allow-address or --allow-private-addresses",
        "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "use --allow-address or --allow-private-addresses",
        "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "use --allow-address or --allow-private-addresses",
        "IMGPROXY_URL_REPLACEMENTS": "not implemented",
        "IMGPROXY_ARGUMENTS_SEPARATOR": "the separator is always ':'",
        "IMGPROXY_PRESETS_PATH": "give the presets in IMGPROXY_PRESETS",
        "IMGPROXY_PREFERRED_FORMATS": "the formats are always jpeg, png and gif",
        "IMGPROXY_AUTO_JXL": "JPEG XL is written only when a URL asks for it",
        "IMGPROXY_ENFORCE_JXL": "JPEG XL is written only when a URL asks for it",
        "IMGPROXY_AUTO_ROTATE": "EXIF orientation is always applied",
        "IMGPROXY_STRIP_METADATA": "kf serve writes no metadata",
        "IMGPROXY_KEEP_COPYRIGHT": "kf serve writes no metadata",
        "IMGPROXY_STRIP_COLOR_PROFILE": "colour profiles are always converted to sRGB",
        "IMGPROXY_USE_ETAG": "kf serve always sends ETag",
        "IMGPROXY_USE_LAST_MODIFIED": "kf serve always sends Last-Modified",
        "IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "kf serve sends its own Cache-Control",
        "IMGPROXY_SO_REUSEPORT": "not implemented",
        "IMGPROXY_HEALTH_CHECK_PATH": "the health paths are /health and /healthcheck",
        "IMGPROXY_DEVELOPMENT_ERRORS_MODE": "every refusal says why already",
        "IMGPROXY_JPEG_PROGRESSIVE": "kf serve writes baseline JPEG",
        "IMGPROXY_PNG_INTERLACED": "kf serve writes non-interlaced PNG",
        "IMGPROXY_AVIF_SPEED": "use --avif-speed",
        "IMGPROXY_USE_GCS": "Google Cloud Storage sources are not implemented",
        "IMGPROXY_USE_ABS": "Azure Blob Storage sources are not implemented",
        "IMGPROXY_USE_SWIFT": "OpenStack Swift sources are not implemented",
        "IMGPROXY_LOG_LEVEL": "use --log-level",
        "IMGPROXY_LOG_FORMAT": "kf serve writes its own log format",
        "IMGPROXY_FREE_MEMORY_INTERVAL": "not applicable",
        "IMGPROXY_LOG_MEM_STATS": "not applicable",
        "IMGPROXY_USER_AGENT": "not implemented",
        "IMGPROXY_IGNORE_SSL_VERIFICATION": "origins' certificates are always verified",
        "IMGPROXY_DEVELOPMENT_MODE": "not applicable",
        "IMGPROXY_PROMETHEUS_NAMESPACE": "the metric names are kf_serve_*",
    ]

    /// Groups of imgproxy variables by prefix, with the reason none of them is read.
    static let unsupportedPrefixes: [(String, String)] = [
        ("IMGPROXY_WATERMARK_", "of the watermark settings only _DATA, _PATH, _URL and _OPACITY are read"),
        ("IMGPROXY_S3_", "of the S3 settings only _REGION, _ENDPOINT, _ENDPOINT_USE_PATH_STYLE, _ALLOWED_BUCKETS and _DENIED_BUCKETS are read"),
        ("IMGPROXY_GCS_", "Google Cloud Storage sources are not implemented"),
        ("IMGPROXY_ABS_", "Azure Blob Storage sources are not implemented"),
        ("IMGPROXY_SWIFT_", "OpenStack Swift sources are not implemented"),
        ("IMGPROXY_FALLBACK_IMAGE_", "fallback images are not implemented"),
        ("IMGPROXY_NEW_RELIC_", "use /metrics"),
        ("IMGPROXY_DATADOG_", "use /metrics"),
        ("IMGPROXY_OPEN_TELEMETRY_", "use /metrics"),
        ("IMGPROXY_CLOUD_WATCH_", "use /metrics"),
        ("IMGPROXY_SENTRY_", "error reporting services are not implemented"),
        ("IMGPROXY_AIRBRAKE_", "error reporting services are not implemented"),
        ("IMGPROXY_BUGSNAG_", "error reporting services are not implemented"),
        ("IMGPROXY_HONEYBADGER_", "error reporting services are not implemented"),
        ("IMGPROXY_SYSLOG_", "the log goes to standard error"),
        ("IMGPROXY_COOKIE_", "cookies are not passed to origins"),
        ("IMGPROXY_SVG_", "SVG is not decoded"),
        ("IMGPROXY_JPEG_", "the JPEG encoder's settings are kf's own"),
        ("IMGPROXY_PNG_", "the PNG encoder's settings are kf's own"),
        ("IMGPROXY_WEBP_", "the WebP encoder's settings are kf's own"),
        ("IMGPROXY_AVIF_", "the AVIF encoder's settings are kf's own"),
    ]

    /// Reads `environment`; the grammar's variables count as read only when `mountsImgproxy`.
    ///
    /// - Throws: `CLIError.usage` naming the variable and its value when a mapped one is malformed.
    init(environment: [String: String], mountsImgproxy: Bool) throws {
        for (name, text) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("IMGPROXY_") {
            if Self.mappedVariables.contains(name) {
                try read(name, text)
            } else if Self.grammarVariables.contains(name) {
                if !mountsImgproxy {
                    notices.append("\(name) is read only for imgproxy's URLs, which are served with --imgproxy PREFIX; not read")
                } else if name == "IMGPROXY_LOCAL_FILESYSTEM_ROOT", !text.isEmpty {
                    localRoot = text
                }
            } else if let reason = Self.unsupported[name] ?? Self.unsupportedPrefixes.first(where: { name.hasPrefix($0.0) })?.1 {
                notices.append("\(name) is not supported: \(reason); not read")
            } else {
                notices.append("\(name) is not an imgproxy setting kf serve knows; not read")
            }
        }
    }

    private mutating func read(_ name: String, _ text: String) throws {
        func bad(_ expected: String) -> CLIError { .usage("\(name)=\(text): \(expected)") }
        let origin = SettingOrigin.imgproxy(name)
        guard !text.isEmpty else { return }
        switch name {
        case "IMGPROXY_BIND", "IMGPROXY_PROMETHEUS_BIND":
            guard let bound = Self.bind(text) else { throw bad("not HOST:PORT (':8080', '0.0.0.0:8080', '[::]:8080')") }
            let (host, port) = bound
            if name == "IMGPROXY_BIND" {
                values["host"] = ImportedValue(value: host, origin: origin)
                values["port"] = ImportedValue(value: port, origin: origin)
            } else {
                values["metrics-port"] = ImportedValue(value: port, origin: origin)
            }
        case "IMGPROXY_ALLOWED_SOURCES":
            let patterns = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard !patterns.contains(where: \.isEmpty) else { throw bad("an empty pattern would allow every source") }
            values["allow-host"] = ImportedValue(value: patterns.map { SourceRule.imgproxyPattern($0) }, origin: origin)
        case "IMGPROXY_MAX_SRC_RESOLUTION":
            guard let megapixels = Double(text), megapixels.isFinite, megapixels > 0, megapixels * 1_000_000 < Double(Int.max) else {
                throw bad("not a positive number of megapixels")
            }
            values["max-pixels"] = ImportedValue(value: max(1, Int(megapixels * 1_000_000)), origin: origin)
        case "IMGPROXY_MAX_SRC_FILE_SIZE":
            guard let bytes = Int64(text), bytes >= 0 else { throw bad("not a number of bytes (0 or more)") }
            if bytes == 0 {
                notices.append("IMGPROXY_MAX_SRC_FILE_SIZE=0 (no limit) is not supported (kf serve always limits a source); --max-source-bytes applies")
            } else {
                values["max-source-bytes"] = ImportedValue(value: bytes, origin: origin)
            }
        case "IMGPROXY_TTL":
            guard let seconds = Int(text), seconds >= 0 else { throw bad("not a number of seconds (0 or more)") }
            values["max-age"] = ImportedValue(value: seconds, origin: origin)
        default:
            break
        }
    }

    /// imgproxy's `bind:port`: `:8080` (every address), `HOST:8080`, `[::1]:8080`.
    static func bind(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}
