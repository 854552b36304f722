import Foundation
import Hummingbird
import HummingbirdTesting
import KingfisherTestServer
@testable import Kingfisher
import Testing
@testable import KingfisherServer

/// imgproxy's `s3://` sources and thumbor's S3 loader against moto, a local S3 that checks every
/// signature (botocore's) and every permission once the test has made its bucket, objects and users.
@Suite("S3 sources against a local moto server", .serialized,
       .enabled(if: MotoServer.isAvailable, "moto's server is not installed: scripts/moto-venv.sh installs it (or set KF_MOTO_VENV)"))
struct S3SourceTests {
    /// `imgproxy` at /imgproxy (unsigned) and thumbor at /thumbor (unsafe, keys
    /// below `public` in the bucket `photos`), reading from `moto` as `credentials`.
    static func configure(_ configuration: inout ImageServerConfiguration, moto: MotoServer, credentials: AWSCredentials,
                          imgproxy: ImgproxyConfiguration, maxSourceBytes: Int64? = nil) {
        configuration.s3 = S3SourceConfiguration(endpoint: moto.endpoint, credentials: credentials, allowedBuckets: ["photos"])
        configuration.mounts = [
            GrammarMount(prefix: "/thumbor", grammar: ThumborGrammar(
                securityKey: nil, allowsUnsafe: true, s3Loader: ThumborS3Loader(bucket: "photos", rootPath: "public"))),
            GrammarMount(prefix: "/imgproxy", grammar: ImgproxyGrammar(configuration: imgproxy, allowsUnsigned: true)),
        ]
        if let maxSourceBytes { configuration.limits.maxSourceBytes = maxSourceBytes }
    }

    /// The pixel size of a PNG answer.
    static func size(_ response: HummingbirdTesting.TestResponse) -> (Int, Int)? {
        (try? KFCrossPlatformImage(data: response.data)).map { (Int($0.size.width), Int($0.size.height)) }
    }

    @Test("objects are read signed; missing is 404, denied and a wrong secret are 403 naming the credentials; a session token is sent, and a forged one refused")
    func readsAndRefuses() async throws {
        let imgproxy = try ImgproxyConfiguration(environment: ["IMGPROXY_USE_S3": "true"])
        try await MotoServer.with { moto in
            try await moto.createBucket("photos")
            try await moto.createBucket("other")
            try await moto.put(ServeKit.jpeg, bucket: "photos", key: "public/cat one.jpg")
            try await moto.put(ServeKit.png, bucket: "photos", key: "private/secret.png")
            try await moto.put(ServeKit.png, bucket: "other", key: "public/x.png")
            let reader = try await moto.user("reader", reading: "photos/public/*")
            let session = try await moto.roleSession("reader-role", reading: "photos/public/*")
            try await moto.requireSignatures()

            try await ServeKit.run(seconds: 60, configure: { Self.configure(&$0, moto: moto, credentials: reader, imgproxy: imgproxy) }) { harness in
                let fitted = try await harness.get("/imgproxy/_/rs:fit:32:32/plain/s3://photos/public/cat%20one.jpg@png")
                #expect(fitted.status == .ok, "\(fitted.text)")
                #expect(fitted.headers[.contentType] == "image/png")
                #expect(Self.size(fitted)?.0 == 32)
                let thumbor = try await harness.get("/thumbor/unsafe/16x12/cat%20one.jpg")
                #expect(thumbor.status == .ok, "\(thumbor.text)")
                #expect(thumbor.headers[.contentType] == "image/jpeg")

                let missing = try await harness.get("/imgproxy/_/plain/s3://photos/public/nothing.jpg@png")
                #expect(missing.status == .notFound)
                #expect(missing.text.contains("S3 has no object s3://photos/public/nothing.jpg"), "\(missing.text)")
                let thumborMissing = try await harness.get("/thumbor/unsafe/16x12/nothing.jpg")
                #expect(thumborMissing.status == .notFound)

                let denied = try await harness.get("/imgproxy/_/plain/s3://photos/private/secret.png")
                #expect(denied.status == .forbidden)
                #expect(denied.text.contains("S3 refused s3://photos/private/secret.png to the credentials from AWS_ACCESS_KEY_ID"), "\(denied.text)")
                #expect(denied.text.contains("AWS_SECRET_ACCESS_KEY"))
                #expect(!denied.text.contains(reader.secretAccessKey))

                let otherBucket = try await harness.get("/imgproxy/_/plain/s3://other/public/x.png")
                #expect(otherBucket.status == .notFound)
                #expect(otherBucket.text.contains("the S3 bucket 'other' is not allowed"), "\(otherBucket.text)")
            }

            let wrong = AWSCredentials(accessKeyID: reader.accessKeyID, secretAccessKey: "not-the-secret", origin: reader.origin)
            try await ServeKit.run(seconds: 60, configure: { Self.configure(&$0, moto: moto, credentials: wrong, imgproxy: imgproxy) }) { harness in
                let refused = try await harness.get("/thumbor/unsafe/16x12/cat%20one.jpg")
                #expect(refused.status == .forbidden)
                #expect(refused.text.contains("AWS_ACCESS_KEY_ID"), "\(refused.text)")
            }

            try await ServeKit.run(seconds: 60, configure: { Self.configure(&$0, moto: moto, credentials: session, imgproxy: imgproxy) }) { harness in
                let read = try await harness.get("/thumbor/unsafe/16x12/cat%20one.jpg")
                #expect(read.status == .ok, "\(read.text)")
            }
            let forged = AWSCredentials(accessKeyID: session.accessKeyID, secretAccessKey: session.secretAccessKey,
                                        sessionToken: "forged", origin: session.origin)
            try await ServeKit.run(seconds: 60, configure: { Self.configure(&$0, moto: moto, credentials: forged, imgproxy: imgproxy) }) { harness in
                // S3 answers a token it cannot read with 400 (InvalidToken), as moto does.
                let refused = try await harness.get("/thumbor/unsafe/16x12/cat%20one.jpg")
                #expect(refused.status == .badGateway)
                #expect(refused.text.contains("AWS_SESSION_TOKEN"), "\(refused.text)")
            }
        }
    }

    @Test("kf serve reads thumbor's images from S3 with the thumbor-aws loader configured only by thumbor.conf")
    func thumborConfLoader() async throws {
        try await MotoServer.with { moto in
            try await moto.createBucket("photos")
            try await moto.put(ServeKit.jpeg, bucket: "photos", key: "public/cat one.jpg")
            let reader = try await moto.user("reader", reading: "photos/public/*")
            try await moto.requireSignatures()
            let conf = try ServeConfigTests.temporaryFile("""
                LOADER = 'thumbor_aws.loader'
                AWS_LOADER_BUCKET_NAME = 'photos'
                AWS_LOADER_ROOT_PATH = 'public/'
                AWS_LOADER_REGION_NAME = 'eu-west-1'
                AWS_LOADER_S3_ENDPOINT_URL = '\(moto.endpoint.absoluteString)'
                """)
            defer { try? FileManager.default.removeItem(at: conf.deletingLastPathComponent()) }
            // The credentials are the environment's, as thumbor.conf's are not read.
            let serve = try await FleetServe.start(
                ["--thumbor", "/thumbor", "--insecure-unsigned", "--thumbor-conf", conf.path], allowances: [],
                variables: ["AWS_ACCESS_KEY_ID": reader.accessKeyID, "AWS_SECRET_ACCESS_KEY": reader.secretAccessKey])
            do {
                try await withWatchdog(.seconds(60)) {
                    let read = try await serve.get("/thumbor/unsafe/16x12/cat%20one.jpg")
                    #expect(read.status == 200, "\(read.text)")
                    #expect(read.header("Content-Type") == "image/jpeg")
                    let missing = try await serve.get("/thumbor/unsafe/16x12/nothing.jpg")
                    #expect(missing.status == 404)
                    #expect(missing.text.contains("s3://photos/public/nothing.jpg"), "\(missing.text)")
                }
            } catch {
                await serve.finish()
                throw error
            }
            await serve.finish()
        }
    }

    @Test("a large object under the source limit is read whole; over the limit it is 413, as from any origin")
    func largeObject() async throws {
        let imgproxy = try ImgproxyConfiguration(environment: ["IMGPROXY_USE_S3": "true"])
        // 1200×1200 of noise: a PNG of over 4 MB that deflate cannot shrink.
        let side = 1200
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var pixels = [UInt8](repeating: 255, count: side * side * 4)
        for index in pixels.indices where index % 4 != 3 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let large = try KFCrossPlatformImage(frame: ImageFrame(unchecked: side, height: side, pixels: pixels)).encoded(as: .PNG)
        #expect(large.count > 4_000_000)
        try await MotoServer.with { moto in
            try await moto.createBucket("photos")
            try await moto.put(large, bucket: "photos", key: "public/large.png")
            let reader = try await moto.user("reader", reading: "photos/public/*")
            try await moto.requireSignatures()
            try await ServeKit.run(seconds: 90, configure: {
                Self.configure(&$0, moto: moto, credentials: reader, imgproxy: imgproxy, maxSourceBytes: Int64(large.count) + 1024)
            }) { harness in
                let read = try await harness.get("/imgproxy/_/rs:fit:100:100/plain/s3://photos/public/large.png")
                #expect(read.status == .ok, "\(read.text)")
                #expect(Self.size(read).map { [$0.0, $0.1] } == [100, 100])
            }
            try await ServeKit.run(seconds: 90, configure: {
                Self.configure(&$0, moto: moto, credentials: reader, imgproxy: imgproxy, maxSourceBytes: 1_000_000)
            }) { harness in
                let refused = try await harness.get("/imgproxy/_/rs:fit:100:100/plain/s3://photos/public/large.png")
                #expect(refused.status == .contentTooLarge)
                #expect(refused.text.contains("over the limit of 1000000 bytes"), "\(refused.text)")
            }
        }
    }
}
