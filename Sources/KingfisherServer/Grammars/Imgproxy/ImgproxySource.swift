import Foundation

/// Reads the source part of an imgproxy path: `plain/<url>[@ext]` or base64url split over segments
/// with `.ext`, as imgproxy's `DecodeURL` does.
enum ImgproxySource {
    /// The decoded source URL and the extension, if any.
    /// `s3://bucket/key` sources become ``S3Location/url`` when `usesS3` (imgproxy's `IMGPROXY_USE_S3`).
    static func decode(_ parts: [Substring], baseURL: String, usesS3: Bool = false) throws -> (url: URL, format: String?) {
        guard let first = parts.first else { throw ImgproxyArguments.invalid("image URL is empty") }
        let (text, format) = first == "plain" && parts.count > 1
            ? try plain(parts.dropFirst())
            : try base64(parts)
        let prefixed = baseURL.isEmpty || text.hasPrefix(baseURL) ? text : baseURL + text
        return (try validated(prefixed, usesS3: usesS3), format)
    }

    /// `plain/…`: joined with `/`, split at `@`, percent-decoded.
    private static func plain(_ parts: ArraySlice<Substring>) throws -> (String, String?) {
        let encoded = parts.joined(separator: "/")
        let pieces = encoded.split(separator: "@", omittingEmptySubsequences: false)
        guard !pieces[0].isEmpty else { throw ImgproxyArguments.invalid("image URL is empty") }
        guard pieces.count <= 2 else { throw ImgproxyArguments.invalid("multiple formats are specified: \(encoded)") }
        guard let unescaped = pieces[0].removingPercentEncoding else {
            throw ImgproxyArguments.invalid("invalid url encoding: \(encoded)")
        }
        return (unescaped, pieces.count == 2 && !pieces[1].isEmpty ? String(pieces[1]) : nil)
    }

    /// Base64url: joined without separator, split at `.`, trailing `=` ignored.
    private static func base64(_ parts: [Substring]) throws -> (String, String?) {
        let encoded = parts.joined()
        let pieces = encoded.split(separator: ".", omittingEmptySubsequences: false)
        guard !pieces[0].isEmpty else { throw ImgproxyArguments.invalid("image URL is empty") }
        guard pieces.count <= 2 else { throw ImgproxyArguments.invalid("multiple formats are specified: \(encoded)") }
        var body = pieces[0]
        while body.hasSuffix("=") { body = body.dropLast() }
        guard let data = Base64URL.decode(body), let text = String(data: data, encoding: .utf8) else {
            throw ImgproxyArguments.invalid("invalid url encoding: \(encoded)")
        }
        return (text, pieces.count == 2 && !pieces[1].isEmpty ? String(pieces[1]) : nil)
    }

    /// The URL when it is http(s) with a host, or an S3 object when `usesS3`; other schemes
    /// imgproxy reads from storage are refused.
    private static func validated(_ text: String, usesS3: Bool) throws -> URL {
        let scheme = text.range(of: "://").map { text[..<$0.lowerBound].lowercased() }
        switch scheme {
        case "http", "https": break
        case "s3" where usesS3:
            guard let location = S3Location(text: text) else {
                throw ImageServerError(.notFound, "Invalid source URL: \(text) names no S3 bucket and key")
            }
            return location.url
        case "s3":
            throw ImageServerError(.notFound, "Invalid source URL: s3:// sources need IMGPROXY_USE_S3=true (\(text))")
        case let storage? where ["s3", "gs", "abs", "swift", "local"].contains(storage):
            throw ImageServerError(.notFound, "Invalid source URL: \(storage):// sources are not supported by kf serve (\(text))")
        default:
            throw ImageServerError(.notFound, "Invalid source URL: only http and https sources are supported (\(text))")
        }
        let allowed = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "#%"))
        guard let url = URL(string: text) ?? text.addingPercentEncoding(withAllowedCharacters: allowed).flatMap(URL.init(string:)),
              let host = url.host, !host.isEmpty else {
            throw ImageServerError(.notFound, "Invalid source URL: \(text) has no host")
        }
        return url
    }
}
