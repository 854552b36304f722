import Foundation
import Hummingbird
import Kingfisher

/// imgproxy's URL grammar: `/<signature>/<option:args>/…/plain/<url>[@ext]` or
/// `/<signature>/<option:args>/…/<base64url split by />[.ext]`, answered as imgproxy 4 answers it.
///
/// Statuses follow imgproxy: 403 for a bad signature and for the per-URL security options, 404 for a
/// malformed path, an unknown or unsupported option (`t`, `pix`, `raw`), a bad argument, an
/// expired URL or a source that is not http(s) (or `local://` with a local root); 422 for an output format kf cannot write.
///
/// Output: an extension or `f` fixes the format. Without one the answer is
/// ``RenditionOutput/source``: imgproxy keeps JPEG, PNG and GIF sources and turns others into
/// JPEG/PNG/GIF, while `.source` also keeps WebP, AVIF and JPEG XL. With `IMGPROXY_AUTO_*` (no
/// extension) or `IMGPROXY_ENFORCE_*` (always) the format is negotiated from `Accept` by kf's own
/// rule (AVIF, then WebP, then JPEG/PNG/GIF), whichever of WebP/AVIF was enabled. JPEG output
/// without `bg` is flattened onto white, as imgproxy flattens for formats without alpha. Blur,
/// sharpen and `bg` run after the whole geometry, so with `ex`/`pd` the blur also reaches the
/// added border (imgproxy blurs before extending). `ar`, `sm`, `kcr`, `scp`, `ph`, `eth`, `skp` and
/// `cb` are read and change nothing: kf always applies EXIF orientation and writes no metadata.
/// `wm` draws the configured watermark (``ImgproxyConfiguration/watermark``) after the filters;
/// without one it draws nothing, as imgproxy does.
public struct ImgproxyGrammar: RenditionGrammar {
    /// The imgproxy configuration.
    public let configuration: ImgproxyConfiguration
    /// Whether unsigned URLs are answered when the configuration has no keys.
    public let allowsUnsigned: Bool
    private let signer: ImgproxySigner
    private let presets: ImgproxyPresets
    private let now: @Sendable () -> Date
    /// The folder of `local://` sources.
    public let localRoot: LocalFileRoot?
    public var localRootSetting: String { "IMGPROXY_LOCAL_FILESYSTEM_ROOT" }

    /// The header every imgproxy answer carries.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// A grammar for `configuration`; without keys, URLs are refused (403) unless `allowsUnsigned`.
    /// `local:///PATH` sources are files below `localRoot` (imgproxy's `IMGPROXY_LOCAL_FILESYSTEM_ROOT`).
    public init(configuration: ImgproxyConfiguration, allowsUnsigned: Bool = false, localRoot: LocalFileRoot? = nil) {
        self.init(configuration: configuration, allowsUnsigned: allowsUnsigned, localRoot: localRoot, now: { Date() })
    }

    /// A grammar reading `exp` against `now`.
    init(configuration: ImgproxyConfiguration, allowsUnsigned: Bool, localRoot: LocalFileRoot? = nil,
         now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.allowsUnsigned = allowsUnsigned
        self.localRoot = localRoot
        self.signer = ImgproxySigner(configuration: configuration)
        self.presets = ImgproxyPresets(configuration.presets)
        self.now = now
    }

    public var name: String { "imgproxy" }

    public var refusedSourceStatus: HTTPResponse.Status { .notFound }

    public func request(forRawPath rawPath: Substring) throws -> RenditionRequest {
        let uri = rawPath.hasPrefix("/") ? rawPath.dropFirst() : rawPath
        guard let slash = uri.firstIndex(of: "/"), slash > uri.startIndex, uri.index(after: slash) < uri.endIndex else {
            throw ImgproxyArguments.invalid("invalid path: \(rawPath)")
        }
        let signature = uri[..<slash]
        let path = ImgproxyPath.redenormalize(uri[uri.index(after: slash)...])
        try authenticate(signature: signature, path: "/" + path)
        guard !path.isEmpty else { throw ImgproxyArguments.invalid("invalid path: \(rawPath)") }

        let date = now()
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        var options = try presets.defaults(now: date)
        let sourceParts: [Substring]
        if configuration.onlyPresets {
            let names = parts[0].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            try presets.apply(names: names, to: &options, now: date, usedPresets: [])
            sourceParts = Array(parts.dropFirst())
        } else {
            if ImgproxyGeometry.ResizingType(rawValue: String(parts[0])) != nil {
                throw ImgproxyArguments.invalid("it looks like you're using the deprecated basic URL format")
            }
            let optionCount = parts.firstIndex(where: { !$0.contains(":") }) ?? parts.count
            try options.apply(segments: Array(parts[..<optionCount]), presets: presets, now: date)
            sourceParts = Array(parts[optionCount...])
        }
        let (source, ext) = try ImgproxySource.decode(sourceParts, baseURL: configuration.baseURL, servesLocalFiles: localRoot != nil,
                                                      usesS3: configuration.usesS3)
        if let ext { options.format = try ImgproxyOptions.format(ext) }
        return rendition(options, source: source)
    }

    /// Checks the signature segment, as imgproxy's `VerifySignature` does.
    private func authenticate(signature: Substring, path: String) throws {
        guard configuration.signsURLs else {
            guard allowsUnsigned else {
                throw ImageServerError(.forbidden,
                    "this server needs signed imgproxy URLs: set IMGPROXY_KEY and IMGPROXY_SALT (or --imgproxy-key and --imgproxy-salt), or allow unsigned URLs")
            }
            if signature.contains(":") {
                throw ImageServerError(.forbidden,
                    "The signature appears to be a processing option. The signature section should always be present in the URL.")
            }
            return
        }
        guard signer.isValid(signature: signature, path: path) else {
            throw ImageServerError(.forbidden,
                "Invalid signature: check that the URL was signed with this server's key and salt (--imgproxy-key and --imgproxy-salt, or IMGPROXY_KEY and IMGPROXY_SALT)")
        }
    }

    /// The rendition `options` describe for `source`.
    private func rendition(_ options: ImgproxyOptions, source: URL) -> RenditionRequest {
        var operations: [RenditionOperation] = [.geometry(RenditionGeometry(options.geometry))]
        if options.blur > 0 { operations.append(.filter(.blur(sigma: options.blur))) }
        if options.sharpen > 0 { operations.append(.filter(.sharpen(sigma: options.sharpen))) }
        if let background = options.geometry.background { operations.append(.filter(.background(background))) }
        if let watermark = options.watermark.watermark(image: configuration.watermark, opacity: configuration.watermarkOpacity,
                                                       dpr: options.geometry.dpr) {
            operations.append(.filter(.watermark(watermark)))
        }

        let output: RenditionOutput
        if configuration.enforceWebP || configuration.enforceAVIF {
            output = .negotiated
        } else if case .writable(let format)? = options.format {
            output = .fixed(format)
        } else if configuration.autoWebP || configuration.autoAVIF {
            output = .negotiated
        } else {
            output = .source
        }

        // imgproxy flattens onto `bg`, white by default, whenever the output format has no alpha.
        if options.geometry.background == nil, output == .fixed(.JPEG) {
            operations.append(.filter(.background(.white)))
        }

        let quality: Int
        if options.quality > 0 {
            quality = options.quality
        } else if case .fixed(let format) = output {
            quality = options.formatQuality[format] ?? configuration.defaultQuality(for: format)
        } else {
            quality = configuration.quality
        }

        let headers = RenditionHeaders(
            maxAge: configuration.ttl,
            fileName: (options.fileName ?? Self.stem(of: source)).replacingOccurrences(of: "\"", with: "%22"),
            attachment: options.attachment,
            expires: options.expires,
            extra: ["Content-Security-Policy": Self.contentSecurityPolicy])
        return RenditionRequest(source: source, operations: operations, output: output,
                                quality: Double(quality) / 100, maxBytes: options.maxBytes > 0 ? options.maxBytes : nil,
                                headers: headers)
    }

    /// The last path component of `source` without its extension, or `image`, as imgproxy names
    /// the file in `Content-Disposition`.
    static func stem(of source: URL) -> String {
        let name = source.lastPathComponent
        let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        return stem.isEmpty || stem == "/" ? "image" : stem
    }
}
