import Foundation
import Kingfisher

/// The part of imgproxy's configuration that changes how its URLs are read and answered.
///
/// Read it from `IMGPROXY_*` variables with ``init(environment:)``, as imgproxy 4 reads them:
///
/// | variable | default | what it does here |
/// |---|---|---|
/// | `IMGPROXY_KEY`, `IMGPROXY_SALT` | none (unsigned) | hex, comma-separated; pair *i* signs with key *i* and salt *i* |
/// | `IMGPROXY_SIGNATURE_SIZE` | 32 | bytes of the HMAC kept (1...32) |
/// | `IMGPROXY_TRUSTED_SIGNATURES` | none | signatures accepted as they are |
/// | `IMGPROXY_PRESETS` (`IMGPROXY_PRESETS_SEPARATOR`) | none | `name=opt:arg/opt:arg,name2=…`; `default` applies to every URL |
/// | `IMGPROXY_ONLY_PRESETS` | false | the options segment is a `:`-separated list of preset names |
/// | `IMGPROXY_BASE_URL` | none | prefixed to every source that does not already start with it |
/// | `IMGPROXY_QUALITY` | 80 | quality when neither `q` nor a per-format quality applies (1...100) |
/// | `IMGPROXY_FORMAT_QUALITY` | `webp=79,avif=63,jxl=77` | per-format qualities, merged over the defaults |
/// | `IMGPROXY_AUTO_WEBP`/`_AVIF` (old names `IMGPROXY_ENABLE_WEBP_DETECTION`/`_AVIF_DETECTION`) | false | no extension → format negotiated from `Accept` |
/// | `IMGPROXY_ENFORCE_WEBP`/`_AVIF` | false | every URL's format negotiated from `Accept`, even with an extension |
/// | `IMGPROXY_TTL` | 31536000 | `Cache-Control: max-age` |
/// | `IMGPROXY_WATERMARK_DATA` (base64), `_PATH`, `_URL` | none | the image `wm` draws (the first set); a URL is fetched like a source |
/// | `IMGPROXY_WATERMARK_OPACITY` | 1 | multiplies `wm`'s opacity (0 < x ≤ 1) |
/// | `IMGPROXY_USE_S3` | false | `s3://bucket/key` sources are read from S3 (see ``S3SourceConfiguration/init(imgproxyEnvironment:)``) |
///
/// Not honoured (the `kf serve` flags govern these instead): `IMGPROXY_MAX_ANIMATION_FRAMES` (kf
/// keeps every frame up to its own `--max-frames`), `IMGPROXY_PRESETS_PATH`, `IMGPROXY_URL_REPLACEMENTS`,
/// `IMGPROXY_ARGUMENTS_SEPARATOR` (always `:`), `IMGPROXY_PATH_PREFIX` (the mount point is kf's),
/// the address rules (`--allow-address`), `IMGPROXY_PREFERRED_FORMATS`
/// (always `jpeg,png,gif`), `IMGPROXY_AUTO_JXL`/`_ENFORCE_JXL`, `IMGPROXY_AUTO_ROTATE` (always on),
/// `IMGPROXY_STRIP_METADATA`/`_COLOR_PROFILE` (kf writes no metadata), the time limits.
/// `kf serve` reads `IMGPROXY_ALLOWED_SOURCES`, `IMGPROXY_BIND`, `IMGPROXY_MAX_SRC_RESOLUTION`,
/// `IMGPROXY_MAX_SRC_FILE_SIZE` and `IMGPROXY_LOCAL_FILESYSTEM_ROOT` into its own settings.
public struct ImgproxyConfiguration: Sendable, Hashable {
    /// HMAC keys; signing is on when there is at least one.
    public var keys: [[UInt8]]
    /// HMAC salts, one per key.
    public var salts: [[UInt8]]
    /// Bytes of the digest a signature carries, 1...32.
    public var signatureSize: Int
    /// Signatures accepted without checking.
    public var trustedSignatures: [String]
    /// Preset definitions by name: the option segments (`rs:fill:300:300`) each stands for.
    public var presets: [String: [String]]
    /// Whether the options part of a URL is a list of preset names only.
    public var onlyPresets: Bool
    /// Prefixed to sources that do not start with it.
    public var baseURL: String
    /// The default quality, 1...100.
    public var quality: Int
    /// Per-format default qualities, 1...100.
    public var formatQuality: [ImageFormat: Int]
    /// Negotiate WebP from `Accept` when the URL names no format.
    public var autoWebP: Bool
    /// Negotiate WebP from `Accept` whatever the URL names.
    public var enforceWebP: Bool
    /// Negotiate AVIF from `Accept` when the URL names no format.
    public var autoAVIF: Bool
    /// Negotiate AVIF from `Accept` whatever the URL names.
    public var enforceAVIF: Bool
    /// `Cache-Control: max-age` in seconds.
    public var ttl: Int
    /// The image `wm` draws, or `nil` when none is configured (then `wm` draws nothing).
    public var watermark: RenditionWatermark.Image?
    /// Multiplies `wm`'s opacity, 0 < x ≤ 1.
    public var watermarkOpacity: Double
    /// Whether `s3://bucket/key` sources are read (the server then needs an ``S3SourceConfiguration``).
    public var usesS3: Bool = false

    /// imgproxy's per-format quality defaults.
    public static let defaultFormatQuality: [ImageFormat: Int] = [.WebP: 79, .AVIF: 63, .JXL: 77]

    /// A configuration from its values; `keys` and `salts` are raw bytes (not hex) and pair up by index.
    ///
    /// - Throws: ``ImgproxyConfigurationError`` when the counts differ, a size or quality is out of
    ///   range, or a preset is malformed.
    public init(keys: [[UInt8]] = [], salts: [[UInt8]] = [], signatureSize: Int = 32,
                trustedSignatures: [String] = [], presets: [String: [String]] = [:], onlyPresets: Bool = false,
                baseURL: String = "", quality: Int = 80, formatQuality: [ImageFormat: Int] = defaultFormatQuality,
                autoWebP: Bool = false, enforceWebP: Bool = false, autoAVIF: Bool = false, enforceAVIF: Bool = false,
                ttl: Int = 31_536_000, watermark: RenditionWatermark.Image? = nil, watermarkOpacity: Double = 1) throws {
        self.keys = keys
        self.salts = salts
        self.signatureSize = signatureSize
        self.trustedSignatures = trustedSignatures
        self.presets = presets
        self.onlyPresets = onlyPresets
        self.baseURL = baseURL
        self.quality = quality
        self.formatQuality = formatQuality
        self.autoWebP = autoWebP
        self.enforceWebP = enforceWebP
        self.autoAVIF = autoAVIF
        self.enforceAVIF = enforceAVIF
        self.ttl = ttl
        self.watermark = watermark
        self.watermarkOpacity = watermarkOpacity
        try validate()
    }

    /// The configuration imgproxy would run with in `environment`.
    ///
    /// - Throws: ``ImgproxyConfigurationError`` naming the variable and what is wrong with it.
    public init(environment: [String: String]) throws {
        let env = ImgproxyEnvironment(environment)
        let keys = try env.hexList("IMGPROXY_KEY")
        let salts = try env.hexList("IMGPROXY_SALT")
        var formatQuality = Self.defaultFormatQuality
        formatQuality.merge(try env.formatQualities("IMGPROXY_FORMAT_QUALITY")) { $1 }
        let separator = env.string("IMGPROXY_PRESETS_SEPARATOR").flatMap { $0.isEmpty ? nil : $0 } ?? ","
        try self.init(
            keys: keys, salts: salts,
            signatureSize: try env.int("IMGPROXY_SIGNATURE_SIZE") ?? 32,
            trustedSignatures: env.list("IMGPROXY_TRUSTED_SIGNATURES"),
            presets: try Self.presets(env.string("IMGPROXY_PRESETS"), separator: separator),
            onlyPresets: try env.bool("IMGPROXY_ONLY_PRESETS") ?? false,
            baseURL: env.string("IMGPROXY_BASE_URL") ?? "",
            quality: try env.int("IMGPROXY_QUALITY") ?? 80,
            formatQuality: formatQuality,
            autoWebP: try env.bool("IMGPROXY_AUTO_WEBP") ?? env.bool("IMGPROXY_ENABLE_WEBP_DETECTION") ?? false,
            enforceWebP: try env.bool("IMGPROXY_ENFORCE_WEBP") ?? false,
            autoAVIF: try env.bool("IMGPROXY_AUTO_AVIF") ?? env.bool("IMGPROXY_ENABLE_AVIF_DETECTION") ?? false,
            enforceAVIF: try env.bool("IMGPROXY_ENFORCE_AVIF") ?? false,
            ttl: try env.int("IMGPROXY_TTL") ?? 31_536_000,
            watermark: try Self.watermarkImage(env),
            watermarkOpacity: try Self.number(env, "IMGPROXY_WATERMARK_OPACITY") ?? 1)
        usesS3 = try env.bool("IMGPROXY_USE_S3") ?? false
    }

    /// A decimal variable, `nil` when unset or empty.
    private static func number(_ env: ImgproxyEnvironment, _ name: String) throws -> Double? {
        guard let text = env.string(name), !text.isEmpty else { return nil }
        guard let value = Double(text), value.isFinite else {
            throw ImgproxyConfigurationError("\(name) must be a number, not '\(text)'")
        }
        return value
    }

    /// This configuration with the key and salt of `--imgproxy-key`/`--imgproxy-salt` (hex), which
    /// replace the environment's pairs.
    ///
    /// - Throws: ``ImgproxyConfigurationError`` when either is not hex or only one is given.
    public func overriding(keyHex: String?, saltHex: String?) throws -> ImgproxyConfiguration {
        guard keyHex != nil || saltHex != nil else { return self }
        guard let keyHex, let saltHex else {
            throw ImgproxyConfigurationError("--imgproxy-key and --imgproxy-salt must be given together")
        }
        var copy = self
        copy.keys = [try ImgproxyEnvironment.hex(keyHex, name: "--imgproxy-key")]
        copy.salts = [try ImgproxyEnvironment.hex(saltHex, name: "--imgproxy-salt")]
        return copy
    }

    /// Whether URLs must carry a signature.
    public var signsURLs: Bool { !keys.isEmpty && !salts.isEmpty }

    /// The quality imgproxy encodes `format` at when the URL names none, 1...100.
    public func defaultQuality(for format: ImageFormat) -> Int { formatQuality[format] ?? quality }

    /// Checks the ranges imgproxy checks at start-up.
    private func validate() throws {
        guard keys.count == salts.count else {
            throw ImgproxyConfigurationError(
                "IMGPROXY_KEY has \(keys.count) keys and IMGPROXY_SALT \(salts.count) salts; they pair up by position, so the counts must be equal")
        }
        guard (1...32).contains(signatureSize) else {
            throw ImgproxyConfigurationError("IMGPROXY_SIGNATURE_SIZE must be 1...32, not \(signatureSize)")
        }
        guard (1...100).contains(quality) else {
            throw ImgproxyConfigurationError("IMGPROXY_QUALITY must be 1...100, not \(quality)")
        }
        if let bad = formatQuality.first(where: { !(1...100).contains($0.value) }) {
            throw ImgproxyConfigurationError("IMGPROXY_FORMAT_QUALITY for \(bad.key) must be 1...100, not \(bad.value)")
        }
        guard ttl >= 0 else { throw ImgproxyConfigurationError("IMGPROXY_TTL must not be negative") }
        guard watermarkOpacity > 0, watermarkOpacity <= 1 else {
            throw ImgproxyConfigurationError("IMGPROXY_WATERMARK_OPACITY must be between 0 and 1, not \(watermarkOpacity)")
        }
        for (name, segments) in presets where name.isEmpty || segments.isEmpty {
            throw ImgproxyConfigurationError("IMGPROXY_PRESETS has an empty name or value in '\(name)'")
        }
        try ImgproxyPresets(presets).validate()
    }

    /// Parses `IMGPROXY_PRESETS`: entries `name=opt:arg/opt:arg` split by `separator`; blank entries
    /// and entries starting with `#` are skipped; every segment of a value must be an option.
    static func presets(_ text: String?, separator: String) throws -> [String: [String]] {
        guard let text, !text.isEmpty else { return [:] }
        var presets: [String: [String]] = [:]
        for rawEntry in text.components(separatedBy: separator) {
            let entry = rawEntry.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty || entry.hasPrefix("#") { continue }
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw ImgproxyConfigurationError("invalid preset string: \(entry)") }
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw ImgproxyConfigurationError("empty preset name: \(entry)") }
            guard !value.isEmpty else { throw ImgproxyConfigurationError("empty preset value: \(entry)") }
            let segments = value.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard segments.allSatisfy({ $0.contains(":") }) else {
                throw ImgproxyConfigurationError("invalid preset value: \(entry)")
            }
            presets[name] = segments
        }
        return presets
    }
}

/// A configuration value imgproxy would refuse at start-up.
public struct ImgproxyConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the variable.
    public let description: String
    init(_ description: String) { self.description = description }
}
