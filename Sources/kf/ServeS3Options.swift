import ArgumentParser
import Foundation
import KingfisherServer

/// The `kf serve` options that read sources from S3: imgproxy's `s3://bucket/key` URLs (with
/// `IMGPROXY_USE_S3=true`) and thumbor paths as keys of one bucket (thumbor-aws's loader).
struct ServeS3Options: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The region S3 requests are signed for (default: $IMGPROXY_S3_REGION with --imgproxy, $AWS_REGION, "
            + "$AWS_DEFAULT_REGION, else us-east-1); enables s3:// sources.",
        valueName: "REGION"))
    var s3Region: String?

    @Option(help: ArgumentHelp(
        "An S3-compatible store (http://127.0.0.1:9000; host:port means http) in place of AWS, buckets as the "
            + "first path segment (default: $IMGPROXY_S3_ENDPOINT with --imgproxy); enables s3:// sources.",
        valueName: "URL"))
    var s3Endpoint: String?

    @Flag(help: "Address buckets at --s3-endpoint by host name (bucket.host) rather than by path.")
    var s3VirtualHosts = false

    @Option(name: .customLong("s3-allow-bucket"), help: ArgumentHelp(
        "The only buckets read (default: any, or $IMGPROXY_S3_ALLOWED_BUCKETS with --imgproxy); repeatable, "
            + "or several separated by commas.",
        valueName: "BUCKET"))
    var s3AllowedBuckets: [String] = []

    @Option(help: ArgumentHelp(
        "Read thumbor's images from this S3 bucket, the image part of a path being the key "
            + "(thumbor-aws's AWS_LOADER_BUCKET_NAME); enables s3:// sources.",
        valueName: "BUCKET"))
    var thumborS3Bucket: String?

    @Option(help: ArgumentHelp(
        "The prefix of every key --thumbor-s3-bucket reads (AWS_LOADER_ROOT_PATH; thumbor-aws's own default is /st).",
        valueName: "PREFIX"))
    var thumborS3RootPath: String = ""

    /// thumbor's S3 loader, when --thumbor-s3-bucket names a bucket.
    var thumborLoader: ThumborS3Loader? {
        thumborS3Bucket.map { ThumborS3Loader(bucket: $0, rootPath: thumborS3RootPath) }
    }

    /// The S3 configuration these options, `mounts` (an imgproxy mount with `IMGPROXY_USE_S3`) and
    /// `environment` ask for, or `nil` when nothing reads from S3.
    func configuration(mounts: [GrammarMount], environment: [String: String]) throws -> S3SourceConfiguration? {
        let imgproxyUsesS3 = mounts.contains { ($0.grammar as? ImgproxyGrammar)?.configuration.usesS3 == true }
        guard imgproxyUsesS3 || s3Region != nil || s3Endpoint != nil || thumborS3Bucket != nil else { return nil }
        if let bucket = thumborS3Bucket, S3Location(bucket: bucket, key: "key") == nil {
            throw CLIError.usage("--thumbor-s3-bucket \(bucket): not an S3 bucket name")
        }
        do {
            var configuration = imgproxyUsesS3
                ? try S3SourceConfiguration(imgproxyEnvironment: environment)
                : S3SourceConfiguration(region: S3SourceConfiguration.region(nil, environment: environment),
                                        credentials: try AWSCredentials.resolve(environment: environment))
            if let s3Region { configuration.region = s3Region }
            if let s3Endpoint { configuration.endpoint = try S3SourceConfiguration.endpointURL(s3Endpoint) }
            if s3VirtualHosts { configuration.usesPathStyle = false }
            let buckets = Resolver.commaSeparated(s3AllowedBuckets)
            if !buckets.isEmpty { configuration.allowedBuckets = buckets }
            if let bucket = thumborS3Bucket, !configuration.allowedBuckets.isEmpty, !configuration.allowedBuckets.contains(bucket) {
                configuration.allowedBuckets.append(bucket)
            }
            return configuration
        } catch let error as S3ConfigurationError {
            throw CLIError.usage("S3: \(error)")
        }
    }
}
