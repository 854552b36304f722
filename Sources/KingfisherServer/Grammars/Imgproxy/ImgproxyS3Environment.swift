import Foundation

extension S3SourceConfiguration {
    /// The S3 configuration imgproxy would read `s3://` sources with in `environment`:
    ///
    /// | variable | default | |
    /// |---|---|---|
    /// | `IMGPROXY_S3_REGION` | `AWS_REGION`, `AWS_DEFAULT_REGION`, else `us-east-1` | the region requests are signed for |
    /// | `IMGPROXY_S3_ENDPOINT` | AWS | an S3-compatible store; `host:port` means `http://host:port` |
    /// | `IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE` | true | `endpoint/bucket/key` rather than `bucket.endpoint/key` |
    /// | `IMGPROXY_S3_ALLOWED_BUCKETS`, `IMGPROXY_S3_DENIED_BUCKETS` | none | comma-separated bucket names |
    /// | `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_PROFILE`, `AWS_SHARED_CREDENTIALS_FILE` | | the credentials (``AWSCredentials/resolve(environment:)``) |
    ///
    /// imgproxy follows a bucket's region when S3 redirects; kf answers 502 naming the region to set.
    ///
    /// - Throws: ``S3ConfigurationError`` for a malformed value, and for the settings kf does not
    ///   implement (`IMGPROXY_S3_ASSUME_ROLE_ARN`, `IMGPROXY_S3_USE_DECRYPTION_CLIENT`,
    ///   `IMGPROXY_S3_ACCESS_POINTS`), which would otherwise read other objects or as someone else.
    public init(imgproxyEnvironment environment: [String: String]) throws {
        for name in ["IMGPROXY_S3_ASSUME_ROLE_ARN", "IMGPROXY_S3_USE_DECRYPTION_CLIENT", "IMGPROXY_S3_ACCESS_POINTS"]
        where !(environment[name] ?? "").isEmpty && environment[name] != "false" {
            throw S3ConfigurationError("\(name) is not supported by kf serve")
        }
        let env = ImgproxyEnvironment(environment)
        let pathStyle: Bool?
        do {
            pathStyle = try env.bool("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE")
        } catch let error as ImgproxyConfigurationError {
            throw S3ConfigurationError(error.description)
        }
        let endpoint = try env.string("IMGPROXY_S3_ENDPOINT").flatMap { $0.isEmpty ? nil : try Self.endpointURL($0) }
        self.init(
            region: Self.region(env.string("IMGPROXY_S3_REGION"), environment: environment), endpoint: endpoint,
            usesPathStyle: pathStyle ?? true, credentials: try AWSCredentials.resolve(environment: environment),
            allowedBuckets: env.list("IMGPROXY_S3_ALLOWED_BUCKETS").filter { !$0.isEmpty },
            deniedBuckets: env.list("IMGPROXY_S3_DENIED_BUCKETS").filter { !$0.isEmpty })
    }

    /// `configured` when set, else `AWS_REGION`, else `AWS_DEFAULT_REGION`, else ``defaultRegion``.
    public static func region(_ configured: String?, environment: [String: String]) -> String {
        [configured, environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]]
            .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty } ?? defaultRegion
    }
}
