import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// Where S3 credentials and settings come from, and how thumbor's and imgproxy's S3 sources are read.
@Suite("S3 configuration")
struct S3ConfigurationTests {
    /// A shared credentials file with two profiles, in a fresh folder.
    static func credentialsFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("credentials")
        try """
            # a comment
            [default]
            aws_access_key_id = AKIDDEFAULT
            aws_secret_access_key = secret/default

            [profile staging]
            AWS_ACCESS_KEY_ID=AKIDSTAGING
            aws_secret_access_key=secret+staging
            aws_session_token = token-staging
            ; another comment
            [broken]
            aws_access_key_id = AKIDBROKEN
            """.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("credentials: the environment's keys first, with the session token")
    func environmentCredentials() throws {
        let credentials = try #require(try AWSCredentials.resolve(environment: [
            "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"]))
        #expect(credentials == AWSCredentials(accessKeyID: "AKIDENV", secretAccessKey: "secret", sessionToken: "token", origin: "AWS_ACCESS_KEY_ID"))
        #expect(throws: S3ConfigurationError.self) { try AWSCredentials.resolve(environment: ["AWS_ACCESS_KEY_ID": "AKIDENV"]) }
        #expect(throws: S3ConfigurationError.self) { try AWSCredentials.resolve(environment: ["AWS_SECRET_ACCESS_KEY": "secret"]) }
    }

    @Test("credentials: the shared file's default profile, or AWS_PROFILE's; a missing profile is an error")
    func sharedFileCredentials() throws {
        let file = try Self.credentialsFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let fromDefault = try #require(try AWSCredentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path]))
        #expect(fromDefault.accessKeyID == "AKIDDEFAULT" && fromDefault.secretAccessKey == "secret/default" && fromDefault.sessionToken == nil)
        #expect(fromDefault.origin == "profile 'default' of \(file.path)")
        let staging = try #require(try AWSCredentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "staging"]))
        #expect(staging.accessKeyID == "AKIDSTAGING" && staging.secretAccessKey == "secret+staging" && staging.sessionToken == "token-staging")
        #expect(throws: S3ConfigurationError.self) {
            try AWSCredentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "production"])
        }
        #expect(throws: S3ConfigurationError.self) {
            try AWSCredentials.resolve(environment: ["AWS_SHARED_CREDENTIALS_FILE": file.path, "AWS_PROFILE": "broken"])
        }
        // ~/.aws/credentials through HOME; nothing there means unsigned requests.
        let home = file.deletingLastPathComponent().appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".aws"), withIntermediateDirectories: true)
        #expect(try AWSCredentials.resolve(environment: ["HOME": home.path]) == nil)
        try FileManager.default.copyItem(at: file, to: home.appendingPathComponent(".aws/credentials"))
        #expect(try AWSCredentials.resolve(environment: ["HOME": home.path])?.accessKeyID == "AKIDDEFAULT")
    }

    @Test("imgproxy's IMGPROXY_S3_* variables, and the ones kf refuses to ignore")
    func imgproxyEnvironment() throws {
        let configuration = try S3SourceConfiguration(imgproxyEnvironment: [
            "IMGPROXY_S3_REGION": "eu-central-1", "IMGPROXY_S3_ENDPOINT": "minio:9000",
            "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false", "IMGPROXY_S3_ALLOWED_BUCKETS": "a, b",
            "IMGPROXY_S3_DENIED_BUCKETS": "c", "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "s"])
        #expect(configuration.region == "eu-central-1")
        #expect(configuration.endpoint?.absoluteString == "http://minio:9000")
        #expect(!configuration.usesPathStyle)
        #expect(configuration.allowedBuckets == ["a", "b"] && configuration.deniedBuckets == ["c"])
        #expect(configuration.allows(bucket: "a") && !configuration.allows(bucket: "c") && !configuration.allows(bucket: "d"))
        #expect(configuration.credentials?.accessKeyID == "AKID")
        let defaults = try S3SourceConfiguration(imgproxyEnvironment: ["AWS_DEFAULT_REGION": "sa-east-1", "HOME": "/nonexistent"])
        #expect(defaults.region == "sa-east-1" && defaults.endpoint == nil && defaults.usesPathStyle && defaults.credentials == nil)
        #expect(try S3SourceConfiguration(imgproxyEnvironment: ["HOME": "/nonexistent"]).region == "us-east-1")
        #expect(throws: S3ConfigurationError.self) {
            try S3SourceConfiguration(imgproxyEnvironment: ["IMGPROXY_S3_ASSUME_ROLE_ARN": "arn:aws:iam::1:role/x"])
        }
        #expect(throws: S3ConfigurationError.self) { try S3SourceConfiguration(imgproxyEnvironment: ["IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "maybe"]) }
    }

    @Test("imgproxy: s3:// sources with IMGPROXY_USE_S3, plain and base64, with a version")
    func imgproxySources() throws {
        let configuration = try ImgproxyConfiguration(environment: ["IMGPROXY_USE_S3": "true"])
        #expect(configuration.usesS3)
        let grammar = ImgproxyGrammar(configuration: configuration, allowsUnsigned: true)
        let plain = try grammar.request(forRawPath: "/_/rs:fit:100:100/plain/s3://photos/2024/a%20b.jpg@png")
        #expect(plain.source.absoluteString == "s3://photos/2024/a%20b.jpg")
        let encoded = Data("s3://photos/k.jpg?3HL4kqtJlcpXroDTDmJ".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let versioned = try grammar.request(forRawPath: Substring("/_/w:10/\(encoded)"))
        #expect(S3Location(url: versioned.source) == S3Location(bucket: "photos", key: "k.jpg", version: "3HL4kqtJlcpXroDTDmJ"))
        #expect(throws: ImageServerError.self) { try grammar.request(forRawPath: "/_/plain/s3://photos/") }
    }

    @Test("thumbor: the image part is a key in the loader's bucket, below its root path, as thumbor-aws makes it")
    func thumborKeys() throws {
        let grammar = ThumborGrammar(securityKey: nil, allowsUnsafe: true, s3Loader: ThumborS3Loader(bucket: "images", rootPath: "/st/"))
        let request = try grammar.request(forRawPath: "/unsafe/300x200/smart/2024/a%2520b.jpg")
        #expect(S3Location(url: request.source) == S3Location(bucket: "images", key: "/st/2024/a b.jpg"))
        let bare = ThumborGrammar(securityKey: nil, allowsUnsafe: true, s3Loader: ThumborS3Loader(bucket: "images"))
        #expect(S3Location(url: try bare.request(forRawPath: "/unsafe/fit-in/50x50/photos/x.png").source)?.key == "photos/x.png")
        #expect(throws: ImageServerError.self) { try bare.request(forRawPath: "/unsafe/50x50/%2F") }
    }

    @Test("kf serve refuses S3 settings it cannot use, naming them, before it listens")
    func commandLineRefusals() async throws {
        let cases: [([String], [String: String], String)] = [
            (["--thumbor-s3-bucket", "photos"], [:], "--thumbor-s3-bucket needs --thumbor PREFIX"),
            (["--thumbor", "/t", "--thumbor-s3-bucket", "no/such"], [:], "--thumbor-s3-bucket no/such: not an S3 bucket name"),
            (["--s3-endpoint", "http://"], [:], "S3: the S3 endpoint 'http://' is not an http(s) URL with a host"),
            (["--s3-region", "eu-west-1"], ["AWS_ACCESS_KEY_ID": "AKID"], "S3: AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not"),
            (["--imgproxy", "/i"], ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ASSUME_ROLE_ARN": "arn:aws:iam::1:role/r"],
             "S3: IMGPROXY_S3_ASSUME_ROLE_ARN is not supported by kf serve"),
        ]
        for (arguments, environment, message) in cases {
            var variables = ProcessInfo.processInfo.environment.filter {
                !$0.key.hasPrefix("KF_SERVE_") && !$0.key.hasPrefix("AWS_") && !$0.key.hasPrefix("IMGPROXY_")
            }
            variables.merge(environment) { $1 }
            let run = try await ChildProcess.run(try ShutdownTests.kfURL().path, ["serve", "--port", "0", "--insecure-unsigned"] + arguments,
                                                 environment: variables)
            #expect(run.termination.status == 2, "\(arguments)")
            #expect(String(decoding: run.standardError, as: UTF8.self).contains(message), "\(arguments): \(String(decoding: run.standardError, as: UTF8.self))")
        }
    }
}
