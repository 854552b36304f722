import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import KingfisherServer

/// The SigV4 signer against AWS's published values: the signature test suite (credentials
/// AKIDEXAMPLE, 2015-08-30 12:36:00 UTC, us-east-1, service `service`), the signing-key example of
/// the SigV4 guide, and the GET Object example of the S3 API reference. Each expected value is
/// AWS's, written out here, not computed.
@Suite("AWS Signature Version 4")
struct AWSSignatureV4Tests {
    static let suiteCredentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)  // 20150830T123600Z
    static let suiteSigner = AWSSignatureV4(credentials: suiteCredentials, region: "us-east-1", service: "service")
    static let scope = "AKIDEXAMPLE/20150830/us-east-1/service/aws4_request"
    static let base: [(name: String, value: String)] = [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")]

    @Test("the date is written as x-amz-date wants it")
    func timestamp() {
        #expect(AWSSignatureV4.timestamp(Self.suiteDate) == "20150830T123600Z")
        #expect(AWSSignatureV4.timestamp(Date(timeIntervalSince1970: 1_369_353_600)) == "20130524T000000Z")
    }

    @Test("get-vanilla: canonical request, string to sign and signature")
    func getVanilla() {
        let signed = Self.suiteSigner.sign(method: "GET", encodedPath: "/", headers: Self.base,
                                           payloadHash: AWSSignatureV4.emptyPayloadHash, date: Self.suiteDate)
        #expect(signed.canonicalRequest == """
            GET
            /

            host:example.amazonaws.com
            x-amz-date:20150830T123600Z

            host;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signed.stringToSign == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/service/aws4_request
            bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63
            """)
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=\(Self.scope), SignedHeaders=host;x-amz-date, "
            + "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test("get-vanilla-query-order-key-case: parameters are sorted by name, upper case first")
    func queryOrder() {
        let signed = Self.suiteSigner.sign(method: "GET", encodedPath: "/", query: [("Param2", "value2"), ("Param1", "value1")],
                                           headers: Self.base, payloadHash: AWSSignatureV4.emptyPayloadHash, date: Self.suiteDate)
        #expect(signed.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2] == "Param1=value1&Param2=value2")
        #expect(signed.signature == "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500")
    }

    @Test("get-header-value-trim: values are trimmed and inner runs of spaces made one")
    func headerValueTrim() {
        let headers = Self.base + [("My-Header1", " value1"), ("My-Header2", "\"a   b   c\"")]
        let signed = Self.suiteSigner.sign(method: "GET", encodedPath: "/", headers: headers,
                                           payloadHash: AWSSignatureV4.emptyPayloadHash, date: Self.suiteDate)
        #expect(signed.canonicalRequest.contains("my-header1:value1\nmy-header2:\"a b c\"\n"))
        #expect(signed.signedHeaders == "host;my-header1;my-header2;x-amz-date")
        #expect(signed.signature == "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736")
    }

    @Test("get-utf8: a path outside ASCII is signed percent-encoded")
    func utf8Path() {
        let path = AWSSignatureV4.uriEncode("/ሴ", keepingSlashes: true)
        #expect(path == "/%E1%88%B4")
        let signed = Self.suiteSigner.sign(method: "GET", encodedPath: path, headers: Self.base,
                                           payloadHash: AWSSignatureV4.emptyPayloadHash, date: Self.suiteDate)
        #expect(signed.signature == "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85")
    }

    @Test("post-x-www-form-urlencoded: the body's hash and the content type are signed")
    func formPost() {
        let body = Data("Param1=value1".utf8)
        #expect(AWSSignatureV4.payloadHash(body) == "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e")
        let signed = Self.suiteSigner.sign(method: "POST", encodedPath: "/",
                                           headers: [("Content-Type", "application/x-www-form-urlencoded")] + Self.base,
                                           payloadHash: AWSSignatureV4.payloadHash(body), date: Self.suiteDate)
        #expect(signed.stringToSign.hasSuffix("\n42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281"))
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=\(Self.scope), SignedHeaders=content-type;host;x-amz-date, "
            + "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a")
    }

    @Test("the signing key of the SigV4 guide's example (iam, us-east-1, 2012-02-15)")
    func signingKey() {
        let key = AWSSignatureV4.signingKey(secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", day: "20120215",
                                            region: "us-east-1", service: "iam")
        #expect(key.withUnsafeBytes { AWSSignatureV4.hex($0) } == "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d")
    }

    @Test("the S3 API reference's GET Object example (examplebucket, test.txt, a Range header)")
    func s3GetObjectExample() {
        let credentials = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        let signer = AWSSignatureV4(credentials: credentials, region: "us-east-1", service: "s3")
        let signed = signer.sign(
            method: "GET", encodedPath: "/test.txt",
            headers: [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                      ("x-amz-content-sha256", AWSSignatureV4.emptyPayloadHash), ("x-amz-date", "20130524T000000Z")],
            payloadHash: AWSSignatureV4.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(signed.stringToSign.hasSuffix("\n7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972"))
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("the request modifier sends the object's GET signed, with the session token, at the endpoint's address")
    func requestModifier() throws {
        let credentials = AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                         sessionToken: "token/with+chars")
        let location = try #require(S3Location(text: "s3://examplebucket/photos/a b+c.jpg"))
        #expect(location.url.absoluteString == "s3://examplebucket/photos/a%20b%2Bc.jpg")
        #expect(S3Location(url: location.url) == location)
        var signer = S3RequestSigner(configuration: S3SourceConfiguration(region: "eu-west-1", credentials: credentials))
        signer.now = { Date(timeIntervalSince1970: 1_369_353_600) }
        let request = try #require(signer.modified(for: URLRequest(url: location.url)))
        #expect(request.url?.absoluteString == "https://examplebucket.s3.eu-west-1.amazonaws.com/photos/a%20b%2Bc.jpg")
        #expect(request.value(forHTTPHeaderField: "Host") == "examplebucket.s3.eu-west-1.amazonaws.com")
        #expect(request.value(forHTTPHeaderField: "x-amz-date") == "20130524T000000Z")
        #expect(request.value(forHTTPHeaderField: "x-amz-content-sha256") == AWSSignatureV4.emptyPayloadHash)
        #expect(request.value(forHTTPHeaderField: "x-amz-security-token") == "token/with+chars")
        let authorization = try #require(request.value(forHTTPHeaderField: "Authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/eu-west-1/s3/aws4_request, "
            + "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="))
        // Any other URL passes unchanged.
        let http = URLRequest(url: try #require(URL(string: "https://example.com/a.jpg")))
        #expect(signer.modified(for: http) == http)
    }

    @Test("addresses: virtual-hosted at AWS (path-style for dotted buckets), path-style or not at an endpoint")
    func addresses() throws {
        let plain = try #require(S3Location(bucket: "photos", key: "a/b.jpg", version: "v 1"))
        let dotted = try #require(S3Location(bucket: "my.photos", key: "a.jpg"))
        let aws = S3SourceConfiguration(region: "ap-south-1")
        #expect(aws.address(of: plain).url.absoluteString == "https://photos.s3.ap-south-1.amazonaws.com/a/b.jpg?versionId=v%201")
        #expect(aws.address(of: dotted).url.absoluteString == "https://s3.ap-south-1.amazonaws.com/my.photos/a.jpg")
        let endpoint = try S3SourceConfiguration.endpointURL("127.0.0.1:9000/")
        #expect(endpoint.absoluteString == "http://127.0.0.1:9000")
        let local = S3SourceConfiguration(endpoint: endpoint)
        #expect(local.address(of: plain).url.absoluteString == "http://127.0.0.1:9000/photos/a/b.jpg?versionId=v%201")
        #expect(local.address(of: plain).host == "127.0.0.1:9000")
        let virtual = S3SourceConfiguration(endpoint: try S3SourceConfiguration.endpointURL("https://store.example.com"), usesPathStyle: false)
        #expect(virtual.address(of: plain).url.absoluteString == "https://photos.store.example.com/a/b.jpg?versionId=v%201")
        #expect(throws: S3ConfigurationError.self) { try S3SourceConfiguration.endpointURL("http://") }
        #expect(S3Location(text: "s3://bucket/") == nil && S3Location(text: "s3://bu cket/k") == nil && S3Location(text: "s3://bucket") == nil)
    }
}
