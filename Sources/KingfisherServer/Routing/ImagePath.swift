import Foundation
import Kingfisher

/// The path of an image request: `/{signature}/{format}/{spec}/{source}`.
///
/// - `signature`: the ``URLSigner`` signature of the other three parts, or `unsafe` when the server
///   allows unsigned requests.
/// - `format`: `jpeg`, `png`, `webp`, `gif`, `avif`, `jxl` or `auto` (AVIF or WebP when the
///   client's `Accept` names `image/avif` or `image/webp`, otherwise JPEG for opaque stills, PNG
///   for the others and GIF for animations; see ``OutputFormat/auto``).
/// - `spec`: a `ProcessorSpec` chain, percent-encoded (`downsample(200x200)%7C%3Eround(20)`), or
///   `-` for no processing.
/// - `source`: the source URL in base64url without padding: http(s), or `file:PATH` for a file
///   below the server's local root (``ImageServerConfiguration/localRoot``).
public struct ImagePath: Sendable, Hashable {
    /// The signature segment as sent.
    public var signature: String
    /// The output format asked for.
    public var format: OutputFormat
    /// The processor spec, decoded; `-` for none.
    public var spec: String
    /// The source URL.
    public var source: URL

    /// The spec segment meaning "no processing".
    public static let noProcessing = "-"
    /// The signature segment of an unsigned request.
    public static let unsigned = "unsafe"

    /// A path for `source`, processed by `spec`, in `format`, signed by `signer` (or `unsafe` without one).
    public init(source: URL, spec: String, format: OutputFormat, signer: URLSigner?) {
        self.source = source
        self.spec = spec
        self.format = format
        self.signature = signer?.signature(format: format.rawValue, spec: spec, source: source.absoluteString) ?? Self.unsigned
    }

    /// Parses the four segments of a request path, percent-encoded as they arrived.
    ///
    /// - Throws: ``ImageServerError`` with status 400 naming the segment that is wrong.
    public init(signature: Substring, format: Substring, spec: Substring, source: Substring) throws {
        guard let parsedFormat = OutputFormat(rawValue: String(format).lowercased()) else {
            throw ImageServerError(.badRequest, "unknown format '\(format)': use jpeg, png, webp, gif, avif, jxl or auto")
        }
        guard let decodedSpec = String(spec).removingPercentEncoding, !decodedSpec.isEmpty else {
            throw ImageServerError(.badRequest, "the processor spec is not valid percent-encoding")
        }
        guard let bytes = Base64URL.decode(source), let text = String(data: bytes, encoding: .utf8),
              let url = URL(string: text), Self.isServable(url)
        else {
            throw ImageServerError(.badRequest, "the source is not an http(s) URL or a file: path in base64url")
        }
        self.signature = String(signature)
        self.format = parsedFormat
        self.spec = decodedSpec
        self.source = url
    }

    /// Whether `url` can be a source: http(s) with a host, or `file:PATH` (a file below the
    /// server's `--local-root`, its path relative and percent-encoded).
    public static func isServable(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "http", "https": return url.host?.isEmpty == false
        case "file": return url.host == nil || url.host?.isEmpty == true
        default: return false
        }
    }

    /// The path to request, starting with `/`, relative to where the routes are mounted.
    public var path: String {
        let encodedSpec = spec.addingPercentEncoding(withAllowedCharacters: Self.specCharacters) ?? Self.noProcessing
        return "/\(signature)/\(format.rawValue)/\(encodedSpec)/\(Base64URL.encode(Data(source.absoluteString.utf8)))"
    }

    /// The processor the spec names; the default processor for `-`.
    ///
    /// - Throws: ``ImageServerError`` with status 400 and the spec's own reason.
    public func processor() throws -> any ImageProcessor {
        guard spec != Self.noProcessing else { return DefaultImageProcessor.default }
        do {
            return try ProcessorSpec(parsing: spec).processor(readsFiles: false)
        } catch let error as ProcessorSpecError {
            throw ImageServerError(.badRequest, "bad processor spec: \(error.description)")
        }
    }

    private static let specCharacters = CharacterSet(charactersIn:
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~(),")
}
