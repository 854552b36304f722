import ArgumentParser
import Foundation
import KingfisherServer

/// The `kf serve` options that read sources from S3: imgproxy's `s3://bucket/key` URLs (with
/// `IMGPROXY_USE_S3=true`) and thumbor paths as keys of one bucket (thumbor-aws's loader). Each is
/// resolved as every other setting is (``ServeS3Resolution``).
struct ServeS3Options: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The region S3 requests are signed for; enables s3:// sources (default: $AWS_REGION, else $AWS_DEFAULT_REGION, "
            + "else us-east-1; $KF_SERVE_S3_REGION, else IMGPROXY_S3_REGION with imgproxy's S3, else AWS_LOADER_REGION_NAME of --thumbor-conf).",
        valueName: "REGION"))
    var s3Region: String?

    @Option(help: ArgumentHelp(
        "An S3-compatible store (http://127.0.0.1:9000; host:port means http) in place of AWS, buckets as the "
            + "first path segment; enables s3:// sources ($KF_SERVE_S3_ENDPOINT, else IMGPROXY_S3_ENDPOINT with imgproxy's S3, "
            + "else AWS_LOADER_S3_ENDPOINT_URL of --thumbor-conf).",
        valueName: "URL"))
    var s3Endpoint: String?

    @Flag(help: ArgumentHelp("Address buckets at --s3-endpoint by host name (bucket.host) rather than by path "
            + "($KF_SERVE_S3_VIRTUAL_HOSTS, else IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE=false with imgproxy's S3)."))
    var s3VirtualHosts = false

    @Option(name: .customLong("s3-allow-bucket"), help: ArgumentHelp(
        "The only buckets read (default: any); repeatable, or several separated by commas ($KF_SERVE_S3_ALLOW_BUCKETS, "
            + "likewise, else IMGPROXY_S3_ALLOWED_BUCKETS with imgproxy's S3).",
        valueName: "BUCKET"))
    var s3AllowedBuckets: [String] = []

    @Option(help: ArgumentHelp(
        "Read thumbor's images from this S3 bucket, the image part of a path being the key; enables s3:// sources "
            + "($KF_SERVE_THUMBOR_S3_BUCKET, else AWS_LOADER_BUCKET_NAME of --thumbor-conf with LOADER = 'thumbor_aws.loader').",
        valueName: "BUCKET"))
    var thumborS3Bucket: String?

    @Option(help: ArgumentHelp(
        "The prefix of every key --thumbor-s3-bucket reads (default: none, but thumbor-aws's /st when --thumbor-conf names its loader; "
            + "$KF_SERVE_THUMBOR_S3_ROOT_PATH, else AWS_LOADER_ROOT_PATH of --thumbor-conf).",
        valueName: "PREFIX"))
    var thumborS3RootPath: String?
}
