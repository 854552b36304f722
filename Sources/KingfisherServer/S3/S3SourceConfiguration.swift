import Foundation

/// Where and as whom an ``ImageServer`` reads `s3://bucket/key` sources: imgproxy's `s3://` URLs
/// and thumbor paths under a ``ThumborS3Loader``.
///
/// Objects are fetched with a `GET` signed with AWS Signature Version 4 through the same downloader
/// as every other source, so the size limit, the timeouts, the caches and the error statuses are
/// the same; the endpoint is the operator's, so the address rules and `--allow-host` do not apply
/// to it (``allowedBuckets`` and ``deniedBuckets`` say which buckets may be read).
public struct S3SourceConfiguration: Sendable, Hashable {
    /// The region requests are signed for (`us-east-1`, `eu-west-1`; what an S3-compatible store expects).
    public var region: String
    /// An S3-compatible store (`http://127.0.0.1:9000`, `https://storage.example.com`), or `nil` for AWS.
    public var endpoint: URL?
    /// Whether the bucket is the first segment of the path at ``endpoint`` (`endpoint/bucket/key`)
    /// rather than part of its host name (`bucket.endpoint/key`). AWS itself is always addressed
    /// by host name, except for buckets whose names hold a `.`.
    public var usesPathStyle: Bool
    /// The credentials requests are signed with; `nil` sends them unsigned (public buckets only).
    public var credentials: AWSCredentials?
    /// The only buckets read, when not empty.
    public var allowedBuckets: [String]
    /// Buckets never read.
    public var deniedBuckets: [String]

    /// The region when none is configured, as the AWS tools assume.
    public static let defaultRegion = "us-east-1"

    /// A configuration reading from `endpoint` (AWS when `nil`) in `region` as `credentials`.
    public init(region: String = defaultRegion, endpoint: URL? = nil, usesPathStyle: Bool = true,
                credentials: AWSCredentials? = nil, allowedBuckets: [String] = [], deniedBuckets: [String] = []) {
        self.region = region.isEmpty ? Self.defaultRegion : region
        self.endpoint = endpoint
        self.usesPathStyle = usesPathStyle
        self.credentials = credentials
        self.allowedBuckets = allowedBuckets
        self.deniedBuckets = deniedBuckets
    }

    /// The URL of an endpoint as operators write it: `host:port` gets `http://` (as imgproxy reads
    /// `IMGPROXY_S3_ENDPOINT`), a trailing `/` is dropped.
    ///
    /// - Throws: ``S3ConfigurationError`` when it is not an http(s) URL with a host.
    public static func endpointURL(_ text: String) throws -> URL {
        let given = text
        var text = text.trimmingCharacters(in: .whitespaces)
        let lowered = text.lowercased()
        if !lowered.hasPrefix("http://"), !lowered.hasPrefix("https://") { text = "http://" + text }
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text), let host = url.host, !host.isEmpty, url.query == nil else {
            throw S3ConfigurationError("the S3 endpoint '\(given)' is not an http(s) URL with a host")
        }
        return url
    }

    /// Whether `bucket` may be read: listed in ``allowedBuckets`` (or that list is empty) and not
    /// in ``deniedBuckets``.
    public func allows(bucket: String) -> Bool {
        (allowedBuckets.isEmpty || allowedBuckets.contains(bucket)) && !deniedBuckets.contains(bucket)
    }

    /// The address of `location`'s object: the URL to fetch, its `Host` header, and its path as signed.
    func address(of location: S3Location) -> (url: URL, host: String, encodedPath: String, query: [(name: String, value: String)]) {
        let scheme: String, host: String, port: Int?, basePath: String, pathStyle: Bool
        if let endpoint {
            scheme = endpoint.scheme?.lowercased() ?? "http"
            host = endpoint.host ?? ""
            port = endpoint.port
            basePath = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
            pathStyle = usesPathStyle
        } else {
            scheme = "https"
            host = "s3.\(region).amazonaws.com"
            port = nil
            basePath = ""
            pathStyle = location.bucket.contains(".")
        }
        let bucketHost = pathStyle ? host : "\(location.bucket).\(host)"
        let defaultPort = scheme == "https" ? 443 : 80
        let hostHeader = port.map { $0 == defaultPort ? bucketHost : "\(bucketHost):\($0)" } ?? bucketHost
        let encodedPath = AWSSignatureV4.uriEncode(basePath, keepingSlashes: true)
            + (pathStyle ? "/\(AWSSignatureV4.uriEncode(location.bucket, keepingSlashes: false))" : "")
            + "/\(location.encodedKey)"
        let query = location.version.map { [(name: "versionId", value: $0)] } ?? []
        let queryText = query.map { "?\($0.name)=\(AWSSignatureV4.uriEncode($0.value, keepingSlashes: false))" }.first ?? ""
        // Every part is unreserved or escaped, so the text always parses.
        let url = URL(string: "\(scheme)://\(hostHeader)\(encodedPath)\(queryText)") ?? URL(fileURLWithPath: "/")
        return (url, hostHeader, encodedPath, query)
    }
}

/// An S3 setting that cannot be used, naming the setting.
public struct S3ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
