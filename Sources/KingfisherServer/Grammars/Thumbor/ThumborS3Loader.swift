import Foundation

/// thumbor's S3 loader (the thumbor-aws plugin, `LOADER = 'thumbor_aws.loader'`): the image part
/// of a thumbor path is the key of an object in one bucket, below a root path.
///
/// The key is made as the plugin makes it: the image part percent-decoded twice (once by the
/// router, once by the plugin's normalizer), leading `/`s dropped, then prefixed with the root
/// path without its trailing `/` and a `/` (`AWS_LOADER_ROOT_PATH = '/st'` and `a/b.jpg` give the
/// key `/st/a/b.jpg`). The bucket, region and endpoint are `AWS_LOADER_BUCKET_NAME`,
/// `AWS_LOADER_REGION_NAME` and `AWS_LOADER_S3_ENDPOINT_URL`; the last two belong to the server's
/// ``S3SourceConfiguration``.
public struct ThumborS3Loader: Sendable, Hashable {
    /// The bucket every image is read from (`AWS_LOADER_BUCKET_NAME`).
    public var bucket: String
    /// The prefix of every key (`AWS_LOADER_ROOT_PATH`); empty for none.
    public var rootPath: String

    /// The plugin's own default root path, `/st`; ``init(bucket:rootPath:)`` defaults to none.
    public static let pluginDefaultRootPath = "/st"

    /// A loader reading `bucket` below `rootPath`.
    public init(bucket: String, rootPath: String = "") {
        self.bucket = bucket
        self.rootPath = rootPath
    }

    /// The object the image part `raw` (still percent-encoded, as received) names; 400 when it names none.
    func location(forRawImage raw: Substring) throws -> S3Location {
        let once = try PercentEncoding.decodedString(raw, what: "the image URI")
        let twice = try PercentEncoding.decodedString(once, what: "the image URI")
        var key = String(twice.drop { $0 == "/" })
        if !rootPath.isEmpty {
            var prefix = rootPath
            while prefix.hasSuffix("/") { prefix.removeLast() }
            key = "\(prefix)/\(key)"
        }
        guard !twice.drop(while: { $0 == "/" }).isEmpty, let location = S3Location(bucket: bucket, key: key) else {
            throw ImageServerError(.badRequest, "no original image was specified in the given URL: \(once)")
        }
        return location
    }
}
