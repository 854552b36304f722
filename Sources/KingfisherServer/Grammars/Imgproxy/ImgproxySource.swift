import Foundation

/// Reads the source part of an imgproxy path: `plain/<url>[@ext]` or base64url split over segments
/// with `.ext`, as imgproxy's `DecodeURL` does.
enum ImgproxySource {
    /// The decoded source URL and the extension, if any.
    /// With `servesLocalFiles`, `local:///PATH` becomes the `file:PATH` source of the model; `s3://bucket/key`
    /// sources become ``S3Location/url`` when `usesS3` (imgproxy's `IMGPROXY_USE_S3`).
    static func decode(_ parts: [Substring], baseURL: String, servesLocalFiles: Bool = false,
                       usesS3: Bool = false) throws -> (url: URL, format: String?) {
        guard let first = parts.first else { throw ImgproxyArguments.invalid("image URL is empty") }
        let (text, format) = first == "plain" && parts.count > 1
            ? try plain(parts.dropFirst())
            : try base64(parts)
        let prefixed = baseURL.isEmpty || text.hasPrefix(baseURL) ? text : baseURL + text
        return (try validated(prefixed, servesLocalFiles: servesLocalFiles, usesS3: usesS3), format)
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

    /// `local://[HOST]/PATH` as the model's `file:PATH` (imgproxy reads PATH below its root; the
    /// host is ignored as imgproxy ignores it). The query, if any, is not part of the path.
    private static func localFile(_ text: String) throws -> URL {
        var rest = text.dropFirst("local://".count)
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        let path = rest.firstIndex(of: "/").map { rest[rest.index(after: $0)...] } ?? ""
        let decoded = path.removingPercentEncoding ?? String(path)
        guard !decoded.isEmpty,
              let encoded = decoded.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed),
              let url = URL(string: "file:" + encoded) else {
            throw ImageServerError(.notFound, "Invalid source URL: \(text) names no file")
        }
        return url
    }

    /// The URL when it is http(s) with a host, a local file when `servesLocalFiles`, or an S3 object
    /// when `usesS3`; other schemes imgproxy reads from storage are refused.
    private static func validated(_ text: String, servesLocalFiles: Bool, usesS3: Bool) throws -> URL {
        let scheme = text.range(of: "://").map { text[..<$0.lowerBound].lowercased() }
        switch scheme {
        case "http", "https": break
        case "local":
            guard servesLocalFiles else {
                throw ImageServerError(.notFound, "Invalid source URL: local:// sources need IMGPROXY_LOCAL_FILESYSTEM_ROOT (\(text))")
            }
            return try localFile(text)
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
