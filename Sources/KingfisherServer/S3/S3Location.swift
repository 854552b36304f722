import Foundation

/// One S3 object: a bucket, a key and, optionally, a version, written `s3://bucket/key[?version]`.
///
/// The key is kept exactly as written (imgproxy reads it so: no percent-decoding), and the URL the
/// server caches it under carries it URI-encoded: `s3://bucket/photos/a%20b.jpg` for the key `photos/a b.jpg`.
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// The bucket's name.
    public var bucket: String
    /// The object's key, without a leading `/`.
    public var key: String
    /// The object's version (`versionId`), or `nil` for the current one.
    public var version: String?

    /// An object location; `nil` when the key is empty or the bucket is not 1 to 255 letters,
    /// digits, `.`, `-` or `_` (S3's names, and the older ones it still serves).
    public init?(bucket: String, key: String, version: String? = nil) {
        guard !key.isEmpty, (1...255).contains(bucket.utf8.count), bucket.utf8.allSatisfy(Self.isBucketByte) else { return nil }
        self.bucket = bucket
        self.key = key
        self.version = version.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func isBucketByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }

    /// The location written as `s3://bucket/key` or `s3://bucket/key?version` (imgproxy's source
    /// form), taken literally; `nil` when it is not one.
    public init?(text: String) {
        guard text.lowercased().hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst("s3://".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let path = rest[rest.index(after: slash)...]
        let (key, version) = path.firstIndex(of: "?").map { (path[..<$0], path[path.index(after: $0)...]) } ?? (path, "")
        self.init(bucket: String(rest[..<slash]), key: String(key), version: String(version))
    }

    /// The location of an `s3:` URL made by ``url``; `nil` for any other URL.
    public init?(url: URL) {
        guard url.scheme?.lowercased() == "s3", let bucket = url.host else { return nil }
        let encodedKey = url.absoluteString.dropFirst("s3://".count + bucket.utf8.count + 1).prefix { $0 != "?" }
        let version = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "versionId" }?.value
        guard let key = String(encodedKey).removingPercentEncoding else { return nil }
        self.init(bucket: bucket, key: key, version: version)
    }

    /// `s3://bucket/encoded-key[?versionId=…]`: the source URL the server checks, caches and logs.
    public var url: URL {
        var text = "s3://\(bucket)/\(encodedKey)"
        if let version { text += "?versionId=\(AWSSignatureV4.uriEncode(version, keepingSlashes: false))" }
        // Every character of the text is unreserved or a %XX escape, so it always parses.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// The key URI-encoded as SigV4 and S3 want it (`/` kept).
    var encodedKey: String { AWSSignatureV4.uriEncode(key, keepingSlashes: true) }

    /// `s3://bucket/key`, as written.
    public var description: String { "s3://\(bucket)/\(key)" + (version.map { "?\($0)" } ?? "") }
}
