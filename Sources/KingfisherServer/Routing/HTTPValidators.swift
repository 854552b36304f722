import Foundation
import Kingfisher

/// The caching headers `kf serve` answers with, for adapters that build their own image responses
/// (the Vapor adapter's `req.kingfisher.response(for:)`), so both write and compare them alike.
public enum HTTPValidators {
    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form of `Last-Modified`.
    public static func httpDate(_ date: Date) -> String {
        ImageServer.httpDate(date)
    }

    /// Whether an `If-None-Match` header value names `etag` (weak comparison; `*` matches any).
    public static func ifNoneMatch(_ header: String, names etag: String) -> Bool {
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == etag { return true }
        }
        return false
    }

    /// The `Content-Type` of bytes in `format`.
    public static func mediaType(of format: ImageFormat) -> String {
        format.mimeType
    }
}
