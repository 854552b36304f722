import Foundation
import KingfisherServer

/// thumbor.conf, as `kf serve --thumbor-conf FILE` reads it: the literal settings that map onto
/// `kf serve`'s or its thumbor grammar's, and one line for each other setting the file makes.
struct ThumborImport {
    /// Values for `kf serve` settings, by flag name.
    var values: [String: ImportedValue] = [:]
    /// One line for each setting read but not honoured.
    var notices: [String] = []
    /// The thumbor grammar's settings.
    var settings = ThumborSettings()
    /// Where each grammar setting came from, for `kf serve config`.
    var report: [ReportLine] = []
    /// `ALLOW_UNSAFE_URL`, when the file sets it.
    var allowsUnsafe: Bool?
    /// `FILE_LOADER_ROOT_PATH`, when the file loader is on.
    var fileLoaderRoot: String?
    /// Whether the file sets `LOADER = 'thumbor_aws.loader'` (read with `--thumbor` only).
    var readsAWSLoader = false

    /// thumbor-aws's loader, the one S3 loader read from the file.
    static let awsLoader = "thumbor_aws.loader"
    /// thumbor-aws's loader settings, each read into a `kf serve` setting.
    static let awsLoaderSettings: [String: String] = [
        "AWS_LOADER_BUCKET_NAME": "thumbor-s3-bucket", "AWS_LOADER_ROOT_PATH": "thumbor-s3-root-path",
        "AWS_LOADER_REGION_NAME": "s3-region", "AWS_LOADER_S3_ENDPOINT_URL": "s3-endpoint",
    ]

    /// The settings that map onto `kf serve`'s own (see ``ServeSetting/thumbor``) or its thumbor grammar's.
    static let read: Set<String> = [
        "SECURITY_KEY", "ALLOWED_SOURCES", "QUALITY", "MAX_AGE", "AUTO_WEBP", "MAX_WIDTH", "MAX_HEIGHT", "RESPECT_ORIENTATION",
        "PROGRESSIVE_JPEG", "FILE_LOADER_ROOT_PATH", "LOADER", "ALLOW_UNSAFE_URL", "MAX_PIXELS", "HTTP_LOADER_MAX_REDIRECTS",
        "HTTP_LOADER_FOLLOW_REDIRECTS", "ENABLE_ETAGS", "AWS_LOADER_BUCKET_NAME", "AWS_LOADER_ROOT_PATH", "AWS_LOADER_REGION_NAME",
        "AWS_LOADER_S3_ENDPOINT_URL", "THUMBOR_AWS_RUN_IN_COMPATIBILITY_MODE",
    ]

    /// thumbor's other settings, grouped by the reason `kf serve` does not honour them.
    static let unsupported: [(reason: String, names: [String])] = [
        ("kf serve keeps originals and renditions in its own disk cache (--cache-dir, --keep-originals)", [
            "STORAGE", "RESULT_STORAGE", "FILE_STORAGE_ROOT_PATH", "RESULT_STORAGE_FILE_STORAGE_ROOT_PATH",
            "RESULT_STORAGE_EXPIRATION_SECONDS", "RESULT_STORAGE_STORES_UNSAFE", "STORAGE_EXPIRATION_SECONDS",
            "STORES_CRYPTO_KEY_FOR_EACH_IMAGE", "MIXED_STORAGE_FILE_STORAGE", "MIXED_STORAGE_CRYPTO_STORAGE",
            "MIXED_STORAGE_DETECTOR_STORAGE", "MAX_ID_LENGTH", "COMPATIBILITY_LEGACY_STORAGE", "COMPATIBILITY_LEGACY_RESULT_STORAGE",
            // thumbor-aws's storage and result storage.
            "AWS_STORAGE_REGION_NAME", "AWS_STORAGE_BUCKET_NAME", "AWS_STORAGE_S3_ACCESS_KEY_ID", "AWS_STORAGE_S3_SECRET_ACCESS_KEY",
            "AWS_STORAGE_S3_ENDPOINT_URL", "AWS_STORAGE_ROOT_PATH", "AWS_STORAGE_S3_ACL", "AWS_RESULT_STORAGE_REGION_NAME",
            "AWS_RESULT_STORAGE_BUCKET_NAME", "AWS_RESULT_STORAGE_S3_ACCESS_KEY_ID", "AWS_RESULT_STORAGE_S3_SECRET_ACCESS_KEY",
            "AWS_RESULT_STORAGE_S3_ENDPOINT_URL", "AWS_RESULT_STORAGE_ROOT_PATH", "AWS_RESULT_STORAGE_S3_ACL", "AWS_DEFAULT_LOCATION",
            "TC_AWS_STORAGE_BUCKET", "TC_AWS_STORAGE_ROOT_PATH", "TC_AWS_STORAGE_SSE", "TC_AWS_STORAGE_RRS",
            "TC_AWS_RESULT_STORAGE_BUCKET", "TC_AWS_RESULT_STORAGE_ROOT_PATH", "TC_AWS_STORE_METADATA",
        ]),
        ("S3 requests are signed with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the AWS_PROFILE of ~/.aws/credentials", [
            "AWS_LOADER_S3_ACCESS_KEY_ID", "AWS_LOADER_S3_SECRET_ACCESS_KEY",
        ]),
        ("of the S3 loaders' settings only thumbor-aws's AWS_LOADER_BUCKET_NAME, _ROOT_PATH, _REGION_NAME and _S3_ENDPOINT_URL are read", [
            "TC_AWS_REGION", "TC_AWS_ENDPOINT", "TC_AWS_LOADER_BUCKET", "TC_AWS_LOADER_ROOT_PATH", "TC_AWS_MAX_RETRY",
            "TC_AWS_ENABLE_HTTP_LOADER", "TC_AWS_ALLOWED_BUCKETS", "TC_AWS_RANDOMIZE_KEYS", "TC_AWS_ROOT_IMAGE_NAME", "AWS_NORMALIZER",
        ]),
        ("kf serve has its own encoders and engine", [
            "ENGINE", "GIF_ENGINE", "USE_GIFSICLE_ENGINE", "PILLOW_JPEG_SUBSAMPLING", "PILLOW_JPEG_QTABLES",
            "PILLOW_RESAMPLING_FILTER", "PILLOW_PRESERVE_INDEXED_MODE", "WEBP_QUALITY", "AVIF_QUALITY", "AVIF_SPEED", "AVIF_CODEC",
            "AVIF_CODEC_FALLBACK", "HEIF_QUALITY", "PNG_COMPRESSION_LEVEL", "SRGB_PROFILE", "SVG_DPI", "OPTIMIZERS",
            "JPEGTRAN_PATH", "JPEGTRAN_SCANS_FILE", "FFMPEG_PATH", "ENGINE_THREADPOOL_SIZE", "ALLOW_ANIMATED_GIFS",
        ]),
        ("only AUTO_WEBP is read from the file (AUTO_AVIF: --thumbor-auto-avif)", [
            "AUTO_AVIF", "AUTO_JPG", "AUTO_HEIF", "AUTO_PNG", "AUTO_PNG_TO_JPG", "AUTO_IMAGE_FORMAT_PREFERENCE",
        ]),
        ("kf serve writes no metadata", ["PRESERVE_EXIF_INFO", "PRESERVE_EXIF_COPYRIGHT_INFO", "PRESERVE_IPTC_INFO"]),
        ("kf serve's HTTP client has its own settings (--upstream-timeout)", [
            "HTTP_LOADER_CONNECT_TIMEOUT", "HTTP_LOADER_REQUEST_TIMEOUT", "HTTP_LOADER_MAX_CLIENTS",
            "HTTP_LOADER_FORWARD_USER_AGENT", "HTTP_LOADER_FORWARD_ALL_HEADERS", "HTTP_LOADER_FORWARD_HEADERS_WHITELIST",
            "HTTP_LOADER_DEFAULT_USER_AGENT", "HTTP_LOADER_PROXY_HOST", "HTTP_LOADER_PROXY_PORT", "HTTP_LOADER_PROXY_USERNAME",
            "HTTP_LOADER_PROXY_PASSWORD", "HTTP_LOADER_CA_CERTS", "HTTP_LOADER_VALIDATE_CERTS", "HTTP_LOADER_CLIENT_KEY",
            "HTTP_LOADER_CLIENT_CERT", "HTTP_LOADER_CURL_ASYNC_HTTP_CLIENT", "HTTP_LOADER_CURL_LOW_SPEED_TIME",
            "HTTP_LOADER_CURL_LOW_SPEED_LIMIT",
        ]),
        ("detectors are not implemented; smart crops use kf's saliency", [
            "DETECTORS", "FACE_DETECTOR_CASCADE_FILE", "GLASSES_DETECTOR_CASCADE_FILE", "PROFILE_DETECTOR_CASCADE_FILE",
            "IGNORE_SMART_ERRORS", "REDIS_QUEUE_SERVER_HOST", "REDIS_QUEUE_SERVER_PORT", "REDIS_QUEUE_SERVER_DB",
            "REDIS_QUEUE_SERVER_PASSWORD", "REDIS_QUEUE_MODE", "REDIS_QUEUE_SENTINEL_INSTANCES", "REDIS_QUEUE_SENTINEL_PASSWORD",
            "REDIS_QUEUE_SENTINEL_MASTER_INSTANCE", "REDIS_QUEUE_SENTINEL_MASTER_PASSWORD", "REDIS_QUEUE_SENTINEL_MASTER_DB",
            "REDIS_QUEUE_SENTINEL_SOCKET_TIMEOUT", "SQS_QUEUE_KEY_ID", "SQS_QUEUE_KEY_SECRET", "SQS_QUEUE_REGION",
        ]),
        ("uploads are not implemented", [
            "UPLOAD_MAX_SIZE", "UPLOAD_ENABLED", "UPLOAD_PHOTO_STORAGE", "UPLOAD_DELETE_ALLOWED", "UPLOAD_PUT_ALLOWED",
            "UPLOAD_DEFAULT_FILENAME",
        ]),
        ("kf serve logs one line per request to standard error and serves /metrics", [
            "THUMBOR_LOG_CONFIG", "THUMBOR_LOG_FORMAT", "THUMBOR_LOG_DATE_FORMAT", "METRICS", "STATSD_HOST", "STATSD_PORT",
            "STATSD_PREFIX", "USE_CUSTOM_ERROR_HANDLING", "ERROR_HANDLER_MODULE", "SENTRY_DSN_URL", "SENTRY_ENVIRONMENT",
            "ERROR_FILE_LOGGER", "ERROR_FILE_NAME_USE_CONTEXT",
        ]),
        ("not implemented", [
            "MIN_WIDTH", "MIN_HEIGHT", "MAX_AGE_TEMP_IMAGE", "SEND_IF_MODIFIED_LAST_MODIFIED_HEADERS", "USE_BLACKLIST",
            "META_CALLBACK_NAME", "FILTERS", "URL_SIGNER", "HEALTHCHECK_ROUTE", "GC_INTERVAL", "APP_CLASS",
            "MAX_WAIT_SECONDS_BEFORE_SERVER_SHUTDOWN", "MAX_WAIT_SECONDS_BEFORE_IO_SHUTDOWN", "NON_BLOCKING_SOCKETS",
            "HANDLER_LISTS", "ACCESS_CONTROL_ALLOW_ORIGIN_HEADER", "RESPECT_ORIENTATION_EXIF",
        ]),
    ]

    /// Reads the file at `path`; settings of thumbor's URLs are honoured only when `mountsThumbor`.
    ///
    /// - Throws: `CLIError.usage` for a file that cannot be read or parsed, or a setting with a
    ///   malformed value (naming the setting and the value).
    init(path: String, mountsThumbor: Bool) throws {
        let contents: String
        do {
            contents = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CLIError.usage("--thumbor-conf \(path): \(ErrorText.reason(of: error, verbose: false))")
        }
        let file: ThumborConfFile
        do {
            file = try ThumborConfFile(contents: contents)
        } catch {
            throw CLIError.usage("--thumbor-conf \(path): \(error)")
        }
        for (line, text) in file.imports {
            notices.append("\(path):\(line): '\(text)' is not run (only literal settings are read)")
        }
        let reasons = Dictionary(Self.unsupported.flatMap { group in group.names.map { ($0, group.reason) } }, uniquingKeysWith: { $1 })
        let grammarOnly = Set(["SECURITY_KEY", "QUALITY", "AUTO_WEBP", "MAX_WIDTH", "MAX_HEIGHT", "LOADER", "FILE_LOADER_ROOT_PATH",
                               "ALLOW_UNSAFE_URL", "THUMBOR_AWS_RUN_IN_COMPATIBILITY_MODE"]).union(Self.awsLoaderSettings.keys)
        let settings = file.settings
        for entry in settings.values.sorted(by: { $0.line < $1.line }) {
            let name = entry.name
            if Self.read.contains(name) {
                if grammarOnly.contains(name) && !mountsThumbor {
                    notices.append("\(path):\(entry.line): \(name) applies to thumbor's URLs, which are served with --thumbor PREFIX; not read")
                    continue
                }
                try read(entry, path: path, loader: settings["LOADER"])
            } else if let reason = reasons[name] {
                notices.append("\(path):\(entry.line): \(name) is not supported: \(reason); not read")
            } else {
                notices.append("\(path):\(entry.line): \(name) is not a thumbor setting kf serve knows; not read")
            }
        }
        // thumbor-aws reads keys below /st when the file names no root path; so does kf serve.
        if readsAWSLoader, values["thumbor-s3-root-path"] == nil {
            values["thumbor-s3-root-path"] = ImportedValue(
                value: ThumborS3Loader.pluginDefaultRootPath,
                origin: .file(name: "LOADER (AWS_LOADER_ROOT_PATH unset: thumbor-aws's default)", path: path))
        }
    }

    private mutating func read(_ entry: ThumborConfFile.Entry, path: String, loader: ThumborConfFile.Entry?) throws {
        let name = entry.name
        let origin = SettingOrigin.file(name: name, path: path)
        func bad(_ expected: String) -> CLIError { .usage("--thumbor-conf \(path):\(entry.line): \(name) = \(entry.text): \(expected)") }
        func bool() throws -> Bool {
            guard case .bool(let value) = entry.value else { throw bad("not True or False") }
            return value
        }
        func integer(_ range: ClosedRange<Int>) throws -> Int {
            guard let number = entry.value.number, number == number.rounded(), number >= Double(range.lowerBound),
                  number <= Double(range.upperBound) else {
                throw bad("not a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return Int(number)
        }
        func string() throws -> String {
            guard case .string(let text) = entry.value else { throw bad("not a string") }
            return text
        }
        func note(_ value: String) { report.append(ReportLine(setting: "thumbor \(name)", value: value, origin: origin.description)) }
        if case .other = entry.value, name != "ALLOWED_SOURCES" { throw bad("not a literal (strings, numbers, True/False and lists of strings are read)") }
        switch name {
        case "SECURITY_KEY":
            values["thumbor-key"] = ImportedValue(value: try string(), origin: origin)
        case "ALLOWED_SOURCES":
            guard let items = entry.value.items else { throw bad("not a list or tuple of strings or re.compile() patterns") }
            var rules: [SourceRule] = []
            for item in items {
                switch item {
                case .string(let text): rules.append(.thumborHost(text))
                case .pattern(let text): rules.append(.thumborURLPattern(text))
                default: throw bad("\(item) is not a string or a re.compile() pattern")
                }
            }
            if let error = rules.compactMap(\.validationError).first { throw bad(error) }
            if rules.isEmpty {
                notices.append("\(path):\(entry.line): ALLOWED_SOURCES = [] allows every source in thumbor; kf serve allows none without --allow-host")
            } else {
                values["allow-host"] = ImportedValue(value: rules, origin: origin)
            }
        case "QUALITY":
            settings.quality = Double(try integer(1...100)) / 100
            note(String(Int(settings.quality * 100)))
        case "MAX_AGE":
            values["max-age"] = ImportedValue(value: try integer(0...Int(Int32.max)), origin: origin)
        case "AUTO_WEBP":
            settings.autoWebP = try bool()
            note(settings.autoWebP ? "True" : "False")
        case "MAX_WIDTH":
            settings.maxWidth = try integer(0...1_000_000)
            note(String(settings.maxWidth))
        case "MAX_HEIGHT":
            settings.maxHeight = try integer(0...1_000_000)
            note(String(settings.maxHeight))
        case "RESPECT_ORIENTATION":
            if try !bool() { notices.append("\(path):\(entry.line): RESPECT_ORIENTATION = False is not supported (EXIF orientation is always applied)") }
        case "PROGRESSIVE_JPEG":
            if try bool() { notices.append("\(path):\(entry.line): PROGRESSIVE_JPEG = True is not supported (kf serve writes baseline JPEG)") }
        case "ENABLE_ETAGS":
            if try !bool() { notices.append("\(path):\(entry.line): ENABLE_ETAGS = False is not supported (kf serve always sends ETag)") }
        case "ALLOW_UNSAFE_URL":
            allowsUnsafe = try bool()
        case "MAX_PIXELS":
            values["max-pixels"] = ImportedValue(value: try integer(1...Int(Int32.max)), origin: origin)
        case "HTTP_LOADER_MAX_REDIRECTS":
            if values["max-redirects"] == nil { values["max-redirects"] = ImportedValue(value: try integer(0...100), origin: origin) }
        case "HTTP_LOADER_FOLLOW_REDIRECTS":
            if try !bool() { values["max-redirects"] = ImportedValue(value: 0, origin: origin) }
        case "LOADER":
            let text = try string()
            if text == Self.awsLoader {
                readsAWSLoader = true
                note(text)
                break
            }
            guard let loader = ThumborSettings.Loader(rawValue: text) else {
                if text.hasPrefix("tc_aws") {
                    throw bad("tc_aws's loader is not read (its keys lose their leading '/' and their '//'s, unlike thumbor-aws's): "
                              + "give LOADER = 'thumbor_aws.loader' with AWS_LOADER_BUCKET_NAME, or --thumbor-s3-bucket and --thumbor-s3-root-path")
                }
                throw bad("kf serve reads thumbor.loaders.http_loader, file_loader, file_loader_http_fallback and thumbor_aws.loader")
            }
            settings.loader = loader
            note(text)
        case "THUMBOR_AWS_RUN_IN_COMPATIBILITY_MODE":
            if try bool() {
                throw bad("thumbor-aws's compatibility mode (the loader's settings from TC_AWS_*) is not read: "
                          + "give them as AWS_LOADER_BUCKET_NAME, AWS_LOADER_ROOT_PATH, AWS_LOADER_REGION_NAME and AWS_LOADER_S3_ENDPOINT_URL")
            }
        case "AWS_LOADER_BUCKET_NAME", "AWS_LOADER_ROOT_PATH", "AWS_LOADER_REGION_NAME", "AWS_LOADER_S3_ENDPOINT_URL":
            // thumbor-aws's default for the endpoint is None: AWS.
            if case .none = entry.value, name == "AWS_LOADER_S3_ENDPOINT_URL" { break }
            let text = try string()
            guard case .string(Self.awsLoader)? = loader?.value else {
                notices.append("\(path):\(entry.line): \(name) is read only with LOADER = '\(Self.awsLoader)'; not read")
                break
            }
            switch name {
            case "AWS_LOADER_BUCKET_NAME":
                guard !text.isEmpty else { throw bad("an empty bucket name (the bucket as the path's first segment) is not supported") }
                guard S3Location(bucket: text, key: "key") != nil else { throw bad("not an S3 bucket name") }
            case "AWS_LOADER_REGION_NAME":
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw bad("an empty region") }
            case "AWS_LOADER_S3_ENDPOINT_URL":
                do {
                    _ = try S3SourceConfiguration.endpointURL(text)
                } catch {
                    throw bad("not an http(s) URL with a host")
                }
            default:
                break
            }
            if let setting = Self.awsLoaderSettings[name] { values[setting] = ImportedValue(value: text, origin: origin) }
        case "FILE_LOADER_ROOT_PATH":
            let text = try string()
            let activeLoader = loader.flatMap { entry -> ThumborSettings.Loader? in
                if case .string(let name) = entry.value { return ThumborSettings.Loader(rawValue: name) }
                return nil
            } ?? .http
            if activeLoader == .http {
                notices.append("\(path):\(entry.line): FILE_LOADER_ROOT_PATH is read only with LOADER = 'thumbor.loaders.file_loader' (or file_loader_http_fallback); not read")
            } else {
                fileLoaderRoot = text
                note(text)
            }
        default:
            break
        }
    }
}
