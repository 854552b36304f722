import Foundation

/// One `kf serve` setting: its flag, its `KF_SERVE_*` variable, and the imgproxy variables and
/// thumbor.conf names it is also read from (lowest precedence but the default).
struct ServeSetting: Sendable {
    /// The flag's long name without dashes (`max-age`).
    let flag: String
    /// The `KF_SERVE_*` variable.
    let variable: String
    /// imgproxy's variables read into it.
    let imgproxy: [String]
    /// thumbor.conf's settings read into it.
    let thumbor: [String]

    init(_ flag: String, variable: String? = nil, imgproxy: [String] = [], thumbor: [String] = []) {
        self.flag = flag
        self.variable = variable ?? "KF_SERVE_" + flag.uppercased().replacingOccurrences(of: "-", with: "_")
        self.imgproxy = imgproxy
        self.thumbor = thumbor
    }

    /// Every setting of `kf serve run`, in the order of its help.
    static let all: [ServeSetting] = [
        ServeSetting("port", imgproxy: ["IMGPROXY_BIND"]),
        ServeSetting("host", imgproxy: ["IMGPROXY_BIND"]),
        ServeSetting("key"),
        ServeSetting("insecure-unsigned", thumbor: ["ALLOW_UNSAFE_URL"]),
        ServeSetting("allow-host", variable: "KF_SERVE_ALLOW_HOSTS", imgproxy: ["IMGPROXY_ALLOWED_SOURCES"], thumbor: ["ALLOWED_SOURCES"]),
        ServeSetting("allow-address", variable: "KF_SERVE_ALLOW_ADDRESSES"),
        ServeSetting("allow-private-addresses"),
        ServeSetting("max-source-bytes", imgproxy: ["IMGPROXY_MAX_SRC_FILE_SIZE"]),
        ServeSetting("max-pixels", imgproxy: ["IMGPROXY_MAX_SRC_RESOLUTION"], thumbor: ["MAX_PIXELS"]),
        ServeSetting("max-frames"),
        ServeSetting("upstream-timeout"),
        ServeSetting("processing-timeout"),
        ServeSetting("max-jobs"),
        ServeSetting("max-queue"),
        ServeSetting("max-age", imgproxy: ["IMGPROXY_TTL"], thumbor: ["MAX_AGE"]),
        ServeSetting("memory-mb"),
        ServeSetting("cache-dir"),
        ServeSetting("local-root"),
        ServeSetting("demo"),
        ServeSetting("demo-sample", variable: "KF_SERVE_DEMO_SAMPLES"),
        ServeSetting("avif-speed"),
        ServeSetting("thumbor"),
        ServeSetting("thumbor-key", thumbor: ["SECURITY_KEY"]),
        ServeSetting("thumbor-conf"),
        ServeSetting("thumbor-auto-webp", thumbor: ["AUTO_WEBP"]),
        ServeSetting("thumbor-auto-avif"),
        ServeSetting("strict-filters"),
        ServeSetting("imgproxy"),
        ServeSetting("imgproxy-key", imgproxy: ["IMGPROXY_KEY"]),
        ServeSetting("imgproxy-salt", imgproxy: ["IMGPROXY_SALT"]),
        // imgproxy's S3 variables are its grammar's (``ImgproxyImport/grammarVariables``): they
        // apply only with --imgproxy and IMGPROXY_USE_S3 (``ServeS3Resolution``).
        ServeSetting("s3-region", imgproxy: ["IMGPROXY_S3_REGION"], thumbor: ["AWS_LOADER_REGION_NAME"]),
        ServeSetting("s3-endpoint", imgproxy: ["IMGPROXY_S3_ENDPOINT"], thumbor: ["AWS_LOADER_S3_ENDPOINT_URL"]),
        ServeSetting("s3-virtual-hosts", imgproxy: ["IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE"]),
        ServeSetting("s3-allow-bucket", variable: "KF_SERVE_S3_ALLOW_BUCKETS", imgproxy: ["IMGPROXY_S3_ALLOWED_BUCKETS"]),
        ServeSetting("thumbor-s3-bucket", thumbor: ["AWS_LOADER_BUCKET_NAME"]),
        ServeSetting("thumbor-s3-root-path", thumbor: ["AWS_LOADER_ROOT_PATH"]),
        ServeSetting("max-redirects", thumbor: ["HTTP_LOADER_MAX_REDIRECTS", "HTTP_LOADER_FOLLOW_REDIRECTS"]),
        ServeSetting("keep-originals"),
        ServeSetting("quality"),
        ServeSetting("log-level"),
        ServeSetting("drain-seconds"),
        ServeSetting("instance"),
        ServeSetting("trusted-proxy", variable: "KF_SERVE_TRUSTED_PROXIES"),
        ServeSetting("metrics-port", imgproxy: ["IMGPROXY_PROMETHEUS_BIND"]),
    ]

    /// The setting of `flag`.
    static func named(_ flag: String) -> ServeSetting {
        all.first { $0.flag == flag } ?? ServeSetting(flag)
    }
}

/// Where a setting's effective value came from.
enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    /// `--flag`.
    case flag(String)
    /// `KF_SERVE_*` (or `THUMBOR_SECURITY_KEY`).
    case variable(String)
    /// An imgproxy variable.
    case imgproxy(String)
    /// A thumbor.conf setting, with the file.
    case file(name: String, path: String)
    /// Nothing gave it.
    case `default`

    var description: String {
        switch self {
        case .flag(let name): return "flag --\(name)"
        case .variable(let name), .imgproxy(let name): return "variable \(name)"
        case .file(let name, let path): return "file \(path): \(name)"
        case .default: return "default"
        }
    }

    /// Given by the flag or the `KF_SERVE_*` variable, which outrank imported settings.
    var isExplicit: Bool {
        switch self {
        case .flag, .variable: return true
        case .imgproxy, .file, .default: return false
        }
    }
}

/// A value read from imgproxy's variables or thumbor.conf for a `kf serve` setting.
struct ImportedValue: Sendable {
    /// The value in the type the setting takes.
    let value: any Sendable
    /// Where it was read.
    let origin: SettingOrigin
}

/// One line of `kf serve config`.
struct ReportLine: Sendable {
    let setting: String
    let value: String
    let origin: String
}
