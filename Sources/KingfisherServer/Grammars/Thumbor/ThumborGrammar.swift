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
/// and filters whose arguments do not match are skipped, as thumbor skips them. The output keeps
/// the source's format unless `format()` says otherwise. `meta` and `debug` paths are refused
/// (400): the JSON description and the focal-point overlay are not implemented. `trim` is read
/// (it enters the cache key) but not applied, as thumbor serves untrimmed when it cannot trim.
/// Geometric filters (`fill`, `upscale`, `rotate`, `proportion`) run inside ``ThumborGeometry`` in
/// URL order; pixel filters run after the whole geometry, in URL order among themselves.
public struct ThumborGrammar: RenditionGrammar {
    public var name: String { "thumbor" }
    public var refusedSourceStatus: HTTPResponse.Status { .badRequest }
    /// The quality of lossy output without a `quality()` filter: thumbor's default `QUALITY`.
    public static let defaultQuality = 0.8

    /// thumbor's `SECURITY_KEY`, or `nil` when signed URLs cannot be checked.
    let key: SymmetricKey?
    /// thumbor's `ALLOW_UNSAFE_URL`.
    let allowsUnsafe: Bool
    /// The S3 loader images are read with, or `nil` for thumbor's HTTP loader.
    let s3Loader: ThumborS3Loader?

    /// The grammar checking signatures with `securityKey` (thumbor's `SECURITY_KEY` as UTF-8 bytes;
    /// `nil` or empty: no signed URL is accepted), serving `unsafe/` URLs only when `allowsUnsafe`,
    /// and reading images from S3 through `s3Loader` when given (the server then needs an
    /// ``S3SourceConfiguration``), else over HTTP.
    public init(securityKey: Data?, allowsUnsafe: Bool, s3Loader: ThumborS3Loader? = nil) {
        key = securityKey.flatMap { $0.isEmpty ? nil : SymmetricKey(data: $0) }
        self.allowsUnsafe = allowsUnsafe
        self.s3Loader = s3Loader
    }

    public func request(forRawPath rawPath: Substring) throws -> RenditionRequest {
        let path = try ThumborPath(rawPath: rawPath)
        try authenticate(path)
        if path.meta { throw ImageServerError(.badRequest, "thumbor's meta/ (JSON) paths are not supported") }
        if path.debug { throw ImageServerError(.badRequest, "thumbor's debug/ paths are not supported") }
        let source = try s3Loader.map { try $0.location(forRawImage: path.image).url } ?? ThumborImageURI.url(fromRaw: path.image)
        // thumbor's QUALITY setting defaults to 80; quality() replaces it.
        var request = RenditionRequest(source: source, output: .source, quality: Self.defaultQuality)
        // Pillow writes a transparent image to JPEG by dropping its alpha channel.
        request.alphaInOpaqueFormats = .discard
        var geometry = path.geometry
        var filters: [RenditionFilter] = []
        if let raw = path.filters {
            let text = try PercentEncoding.decodedString(raw, what: "the filters")
            for call in ThumborFilterCall.calls(in: text) {
                Self.apply(call, to: &request, geometry: &geometry, filters: &filters)
            }
        }
        request.operations = [.geometry(RenditionGeometry(geometry))] + filters.map { .filter($0) }
        return request
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
