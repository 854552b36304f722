import Crypto
import Foundation
import Hummingbird
import Kingfisher

/// thumbor's URL grammar: `/(unsafe|SIGNATURE)/[trim/][AxB:CxD/][adaptive-][full-]fit-in/]
/// [-]Wx[-]H/[halign/][valign/][smart/][filters:NAME(ARGS):…/]IMAGE`, answered as thumbor 7 does.
///
/// The signature is thumbor's: HMAC-SHA1 with the security key over the path after `/SIGNATURE/`,
/// exactly as sent, in URL-safe base64 with `=` padding (the segment may also be percent-encoded;
/// a path whose `https://` a proxy merged into `https:/` is checked as signed with `//`).
/// Every refusal is a 400, as thumbor answers. Known filters map onto the model; unknown filters
/// and filters whose arguments do not match are skipped, as thumbor skips them. thumbor's built-in
/// filters the server does not apply (``ThumborFilterCall/unsupported``) are skipped too and
/// reported in ``RenditionRequest/unsupportedFilters``, or refused (400) with `strictFilters`.
/// The output keeps the source's format unless `format()` says otherwise, or, with `autoWebP` or
/// `autoAVIF` (thumbor's `AUTO_WEBP`/`AUTO_AVIF`) and no `format()`, becomes WebP (then AVIF) for
/// a client whose `Accept` names it. `meta` and `debug` paths are refused (400): the JSON
/// description and the focal-point overlay are not implemented. `trim` runs before the geometry.
/// Geometric filters (`fill`, `upscale`, `rotate`, `proportion`) run inside ``ThumborGeometry`` in
/// URL order; pixel filters (`watermark` among them) run after the whole geometry, in URL order
/// among themselves.
public struct ThumborGrammar: RenditionGrammar {
    public var name: String { "thumbor" }
    public var refusedSourceStatus: HTTPResponse.Status { .badRequest }
    /// The quality of lossy output without a `quality()` filter: thumbor's default `QUALITY`.
    public static let defaultQuality = 0.8

    /// thumbor's `SECURITY_KEY`, or `nil` when signed URLs cannot be checked.
    let key: SymmetricKey?
    /// thumbor's `ALLOW_UNSAFE_URL`.
    let allowsUnsafe: Bool
    /// thumbor's `AUTO_WEBP`: without `format()`, WebP for clients whose `Accept` names it.
    public let autoWebP: Bool
    /// thumbor's `AUTO_AVIF`: without `format()`, AVIF for clients whose `Accept` names it (WebP
    /// first when both are on and named, as thumbor prefers).
    public let autoAVIF: Bool
    /// Refuse (400) a URL naming a filter thumbor has and the server does not apply, instead of
    /// skipping it.
    public let strictFilters: Bool
    /// The settings of thumbor's configuration file that change answers.
    public let settings: ThumborSettings
    /// The folder of the file loader (thumbor's `FILE_LOADER_ROOT_PATH`), used when
    /// ``ThumborSettings/loader`` reads files.
    public let localRoot: LocalFileRoot?
    public var localRootSetting: String { "FILE_LOADER_ROOT_PATH with LOADER = 'thumbor.loaders.file_loader' (--thumbor-conf)" }
    /// The S3 loader images are read with, or `nil` for thumbor's HTTP (or file) loader.
    let s3Loader: ThumborS3Loader?

    /// The grammar checking signatures with `securityKey` (thumbor's `SECURITY_KEY` as UTF-8 bytes;
    /// `nil` or empty: no signed URL is accepted), serving `unsafe/` URLs only when `allowsUnsafe`,
    /// with thumbor's `settings` and, for its file loader, the files below `localRoot`; negotiating
    /// WebP and AVIF when `autoWebP` (or the settings' `AUTO_WEBP`) and `autoAVIF` say so, refusing
    /// filters it cannot apply when `strictFilters`, and reading images from S3 through `s3Loader`
    /// when given (the server then needs an ``S3SourceConfiguration``).
    public init(securityKey: Data?, allowsUnsafe: Bool, settings: ThumborSettings = ThumborSettings(), localRoot: LocalFileRoot? = nil,
                autoWebP: Bool = false, autoAVIF: Bool = false, strictFilters: Bool = false, s3Loader: ThumborS3Loader? = nil) {
        key = securityKey.flatMap { $0.isEmpty ? nil : SymmetricKey(data: $0) }
        self.allowsUnsafe = allowsUnsafe
        self.settings = settings
        self.localRoot = settings.loader == .http ? nil : localRoot
        self.autoWebP = autoWebP || settings.autoWebP
        self.autoAVIF = autoAVIF
        self.strictFilters = strictFilters
        self.s3Loader = s3Loader
    }

    public func request(forRawPath rawPath: Substring) throws -> RenditionRequest {
        let path = try ThumborPath(rawPath: rawPath)
        try authenticate(path)
        if path.meta { throw ImageServerError(.badRequest, "thumbor's meta/ (JSON) paths are not supported") }
        if path.debug { throw ImageServerError(.badRequest, "thumbor's debug/ paths are not supported") }
        let source = try s3Loader.map { try $0.location(forRawImage: path.image).url } ?? source(of: path.image)
        var request = RenditionRequest(source: source, output: .source, quality: settings.quality)
        if s3Loader == nil, settings.loader == .fileWithHTTPFallback {
            request.fallbackSource = try? ThumborImageURI.url(fromRaw: path.image)
        }
        // Pillow writes a transparent image to JPEG by dropping its alpha channel.
        request.alphaInOpaqueFormats = .discard
        var geometry = path.geometry
        // thumbor's MAX_WIDTH and MAX_HEIGHT lower the requested size, never `orig` or an unset side.
        if settings.maxWidth > 0, case .pixels(let width) = geometry.width, width > settings.maxWidth {
            geometry.width = .pixels(settings.maxWidth)
        }
        if settings.maxHeight > 0, case .pixels(let height) = geometry.height, height > settings.maxHeight {
            geometry.height = .pixels(settings.maxHeight)
        }
        var filters: [RenditionFilter] = []
        var namesFormat = false
        if let raw = path.filters {
            let text = try PercentEncoding.decodedString(raw, what: "the filters")
            request.unsupportedFilters = ThumborFilterCall.unsupportedNames(in: text)
            if strictFilters, let name = request.unsupportedFilters.first {
                throw ImageServerError(.badRequest, "kf serve does not apply thumbor's \(name)() filter (--strict-filters)")
            }
            var heif = false, namesQuality = false
            for call in ThumborFilterCall.calls(in: text) {
                if call.name == "format" {
                    let name = call.arguments[0].lowercased()
                    if Self.formatNames.contains(name) { namesFormat = true }
                    heif = name == "heic" || name == "heif"
                }
                if call.name == "quality" { namesQuality = true }
                Self.apply(call, to: &request, geometry: &geometry, filters: &filters)
            }
            // thumbor picks HEIF_QUALITY (75 when unset) for format(heic) before its engine, with no
            // HEIF encoder, writes the source's format.
            if heif, !namesQuality { request.quality = Self.heifQuality }
        }
        let automatic = (autoWebP ? [ImageFormat.WebP] : []) + (autoAVIF ? [ImageFormat.AVIF] : [])
        if !namesFormat, !automatic.isEmpty { request.output = .sourceOrAccepted(automatic) }
        let trim = geometry.trim.map(Self.trim) ?? []
        request.operations = trim + [.geometry(RenditionGeometry(geometry))] + filters.map { .filter($0) }
        return request
    }

    /// The quality of `format(heic)` without `quality()`: thumbor's `HEIF_QUALITY` default.
    public static let heifQuality = 0.75

    /// The names `format()` takes; any other leaves the output as it was, automatic formats included.
    static let formatNames: Set<String> = ["jpeg", "jpg", "png", "gif", "webp", "avif", "heic", "heif", "jxl"]

    /// `trim[:CORNER][:TOLERANCE]` as thumbor reads it: the second part names the corner (anything
    /// but `top-left`, a tolerance written there too, means bottom-right), the third the tolerance.
    static func trim(_ text: String) -> [RenditionOperation] {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let corner: TrimCorner = parts.count < 2 || parts[1] == "top-left" ? .topLeft : .bottomRight
        let tolerance = parts.count > 2 ? ThumborPath.number(parts[2]) : 0
        return [.filter(.trim(corner: corner, tolerance: tolerance))]
    }

    /// The source of the image part: the URL the HTTP loader fetches, or with the file loader the
    /// `file:` path below its root (percent-decoded once, as thumbor's file loader decodes it).
    private func source(of image: Substring) throws -> URL {
        guard settings.loader != .http else { return try ThumborImageURI.url(fromRaw: image) }
        let path = try PercentEncoding.decodedString(image, what: "the image path")
        guard let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed), let url = URL(string: "file:" + encoded) else {
            throw ImageServerError(.badRequest, "the image path is not a file path: \(path)")
        }
        return url
    }

    /// The signature `signedPart` needs under this grammar's key (`nil` without a key).
    func signature(of signedPart: some StringProtocol) -> String? {
        key.map { Self.signature(of: signedPart, key: $0) }
    }

    /// URL-safe base64 of the HMAC-SHA1 of `signedPart`, `=`-padded.
    static func signature(of signedPart: some StringProtocol, key: SymmetricKey) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(signedPart.utf8), using: key)
        return Data(code).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
    }

    /// Throws 400 unless the path is `unsafe` on a server that allows it, or carries the signature
    /// of its rest under the security key (compared in constant time).
    private func authenticate(_ path: ThumborPath) throws {
        switch path.signature {
        case .none:
            throw ImageServerError(.badRequest, "the URL has neither a signature nor 'unsafe'")
        case .unsafe:
            guard allowsUnsafe else {
                throw ImageServerError(.badRequest, "'unsafe' URLs are not allowed by this server; sign the URL with its thumbor security key")
            }
        case .hash(let raw):
            guard let key else {
                throw ImageServerError(.badRequest, "the server has no thumbor security key, so signed URLs cannot be checked"
                    + (allowsUnsafe ? "; use 'unsafe'" : ""))
            }
            let provided = PercentEncoding.decodedBytes(String(decoding: PercentEncoding.decodedBytes(raw), as: UTF8.self))
            let signed = [String(path.signedPart), Self.restoringCollapsedSchemes(path.signedPart)]
            let matches = Set(signed).map { Self.constantTimeEqual(provided, Array(Self.signature(of: $0, key: key).utf8)) }
            guard matches.contains(true) else {
                throw ImageServerError(.badRequest, "malformed URL: the signature does not match the path: check that the URL was signed with this server's thumbor key (--thumbor-key or THUMBOR_SECURITY_KEY)")
            }
        }
    }

    /// `text` with `http:/` and `https:/` not followed by a second `/` given it back: a proxy or
    /// router that merges slashes turns a signed `https://` into `https:/`.
    static func restoringCollapsedSchemes(_ text: Substring) -> String {
        var output = ""
        var rest = text
        while let separator = rest.range(of: ":/") {
            output += rest[..<separator.upperBound]
            let before = rest[..<separator.lowerBound], after = rest[separator.upperBound...]
            if before.hasSuffix("http") || before.hasSuffix("https"), after.first != "/" { output += "/" }
            rest = after
        }
        return output + rest
    }

    /// Whether `lhs` and `rhs` are equal, in a time that depends only on their lengths.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
