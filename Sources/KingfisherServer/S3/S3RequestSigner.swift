import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Kingfisher

/// The downloader's request modifier for `s3://` sources: turns the request for `s3://bucket/key`
/// into a `GET` of the object at the configured endpoint, signed with AWS Signature Version 4 at
/// the moment it is sent (each retry is signed anew).
///
/// Requests for any other URL pass unchanged. Headers added after signing (the cache's
/// `If-None-Match` when it revalidates) are not signed, which S3 allows for standard headers.
struct S3RequestSigner: ImageDownloadRequestModifier {
    let configuration: S3SourceConfiguration
    /// The signing time; the clock, except in tests.
    var now: @Sendable () -> Date = { Date() }

    func modified(for request: URLRequest) -> URLRequest? {
        guard let url = request.url, let location = S3Location(url: url) else { return request }
        return signedRequest(for: location, basedOn: request)
    }

    /// The signed `GET` of `location`, keeping `request`'s other headers and timeout.
    func signedRequest(for location: S3Location, basedOn request: URLRequest) -> URLRequest {
        let address = configuration.address(of: location)
        var signed = request
        signed.url = address.url
        signed.httpMethod = "GET"
        signed.setValue(address.host, forHTTPHeaderField: "Host")
        guard let credentials = configuration.credentials else { return signed }
        let date = now()
        var headers: [(name: String, value: String)] = [
            ("host", address.host),
            ("x-amz-content-sha256", AWSSignatureV4.emptyPayloadHash),
            ("x-amz-date", AWSSignatureV4.timestamp(date)),
        ]
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let signer = AWSSignatureV4(credentials: credentials, region: configuration.region, service: "s3")
        let result = signer.sign(method: "GET", encodedPath: address.encodedPath, query: address.query, headers: headers,
                                 payloadHash: AWSSignatureV4.emptyPayloadHash, date: date)
        for (name, value) in headers where name != "host" { signed.setValue(value, forHTTPHeaderField: name) }
        signed.setValue(result.authorization, forHTTPHeaderField: "Authorization")
        return signed
    }
}
