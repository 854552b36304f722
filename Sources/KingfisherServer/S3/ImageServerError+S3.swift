import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Kingfisher

extension ImageServerError {
    /// The answer for a status S3 refused an object with: 404 for a missing object, 403 naming the
    /// credentials for a refusal, 502 naming the region setting for a request sent to the wrong region.
    init(s3Status response: HTTPURLResponse, location: S3Location, configuration: S3SourceConfiguration?) {
        let code = response.statusCode
        let credentials = configuration?.credentials
        switch code {
        case 404, 410:
            self.init(.notFound, "S3 has no object \(location) (it answered \(code))")
        case 401, 403:
            let who = credentials.map { "the credentials from \($0.origin) (access key \($0.accessKeyID))" }
                ?? "an unsigned request (no credentials were found)"
            self.init(.forbidden, "S3 refused \(location) to \(who) with \(code): check AWS_ACCESS_KEY_ID and "
                + "AWS_SECRET_ACCESS_KEY (or AWS_PROFILE and ~/.aws/credentials), and that they may read the object; "
                + "S3 also answers 403 for a missing object to credentials that may not list the bucket")
        case 301, 307:
            let region = response.value(forHTTPHeaderField: "x-amz-bucket-region")
            let configured = configuration?.region ?? S3SourceConfiguration.defaultRegion
            let advice = region.map { "the bucket is in \($0): set --s3-region \($0) (IMGPROXY_S3_REGION, AWS_LOADER_REGION_NAME)" }
                ?? "set the bucket's region with --s3-region"
            self.init(.badGateway, "S3 answered \(code) for \(location) signed for \(configured): \(advice)")
        case 400:
            let token = credentials?.sessionToken == nil ? "" : "the session token (AWS_SESSION_TOKEN) may be malformed or expired, or "
            self.init(.badGateway, "S3 answered 400 for \(location): \(token)check --s3-region "
                + "(\(configuration?.region ?? S3SourceConfiguration.defaultRegion)) and --s3-endpoint, which the request was signed and sent for")
        default:
            self.init(.badGateway, "S3 answered \(code) for \(location)")
        }
    }
}

extension ImageServer {
    /// Throws unless the server reads S3 sources and `location`'s bucket is allowed.
    func checkS3Source(_ location: S3Location, refusedStatus: HTTPResponse.Status) throws {
        guard let s3 = configuration.s3 else {
            throw ImageServerError(refusedStatus, "s3:// sources are not enabled on this server (kf serve --s3-region or --s3-endpoint, or IMGPROXY_USE_S3)")
        }
        guard s3.allows(bucket: location.bucket) else {
            throw ImageServerError(refusedStatus, "the S3 bucket '\(location.bucket)' is not allowed (kf serve --s3-allow-bucket; IMGPROXY_S3_ALLOWED_BUCKETS, IMGPROXY_S3_DENIED_BUCKETS)")
        }
    }
}
