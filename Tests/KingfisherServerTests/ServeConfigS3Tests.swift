import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// The S3 settings through the registry: flags, `KF_SERVE_S3_*` variables, imgproxy's
/// `IMGPROXY_S3_*` (with `IMGPROXY_USE_S3` only) and thumbor-aws's loader in thumbor.conf.
extension ServeConfigTests {
    /// Runs `kf` as ``kf(_:_:)`` does, also without the caller's `AWS_*` variables and with a home
    /// that holds no AWS credentials.
    static func s3kf(_ arguments: [String], _ variables: [String: String] = [:]) async throws -> ServeCommandTests.Run {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("KF_SERVE_") && !$0.key.hasPrefix("IMGPROXY_") && !$0.key.hasPrefix("THUMBOR_") && !$0.key.hasPrefix("AWS_")
        }
        environment["HOME"] = "/nonexistent-kf-home"
        environment.merge(variables) { $1 }
        let run = try await ChildProcess.run(try ShutdownTests.kfURL().path, arguments, environment: environment)
        return ServeCommandTests.Run(status: run.termination.status, output: String(decoding: run.standardOutput, as: UTF8.self),
                                     error: String(decoding: run.standardError, as: UTF8.self))
    }

    /// `kf serve config`'s value and origin of each S3 setting.
    static func s3Lines(_ output: String) -> [String: (value: String, origin: String)] {
        var lines: [String: (value: String, origin: String)] = [:]
        for setting in ["s3-region", "s3-endpoint", "s3-virtual-hosts", "s3-allow-bucket", "thumbor-s3-bucket", "thumbor-s3-root-path"] {
            lines[setting] = line(output, setting)
        }
        return lines
    }

    @Test("each S3 setting has a KF_SERVE_ variable, shown with its origin; the flag outranks it")
    func s3Variables() async throws {
        let variables = ["KF_SERVE_S3_REGION": "eu-west-2", "KF_SERVE_S3_ENDPOINT": "127.0.0.1:9000", "KF_SERVE_S3_VIRTUAL_HOSTS": "true",
                         "KF_SERVE_S3_ALLOW_BUCKETS": "a, b", "KF_SERVE_THUMBOR_S3_BUCKET": "photos", "KF_SERVE_THUMBOR_S3_ROOT_PATH": "/st"]
        let run = try await Self.s3kf(["serve", "config", "--thumbor", "/t", "--insecure-unsigned"], variables)
        #expect(run.status == 0, "\(run.error)")
        let lines = Self.s3Lines(run.output)
        let expected = ["s3-region": ("eu-west-2", "KF_SERVE_S3_REGION"), "s3-endpoint": ("127.0.0.1:9000", "KF_SERVE_S3_ENDPOINT"),
                        "s3-virtual-hosts": ("true", "KF_SERVE_S3_VIRTUAL_HOSTS"), "s3-allow-bucket": ("a,b", "KF_SERVE_S3_ALLOW_BUCKETS"),
                        "thumbor-s3-bucket": ("photos", "KF_SERVE_THUMBOR_S3_BUCKET"),
                        "thumbor-s3-root-path": ("/st", "KF_SERVE_THUMBOR_S3_ROOT_PATH")]
        for (setting, (value, variable)) in expected {
            #expect(lines[setting]?.value == value, "\(setting): \(run.output)")
            #expect(lines[setting]?.origin == "variable \(variable)", "\(setting)")
        }

        var overridden = variables
        overridden["KF_SERVE_S3_VIRTUAL_HOSTS"] = "false"
        let flags = try await Self.s3kf(["serve", "config", "--thumbor", "/t", "--insecure-unsigned", "--s3-region", "us-west-1",
                                         "--s3-endpoint", "http://minio:9000", "--s3-virtual-hosts", "--s3-allow-bucket", "c",
                                         "--thumbor-s3-bucket", "pics", "--thumbor-s3-root-path", "p"], overridden)
        #expect(flags.status == 0, "\(flags.error)")
        let flagLines = Self.s3Lines(flags.output)
        let flagValues = ["s3-region": "us-west-1", "s3-endpoint": "http://minio:9000", "s3-virtual-hosts": "true", "s3-allow-bucket": "c",
                          "thumbor-s3-bucket": "pics", "thumbor-s3-root-path": "p"]
        for (setting, value) in flagValues {
            #expect(flagLines[setting]?.value == value, "\(setting): \(flags.output)")
            #expect(flagLines[setting]?.origin == "flag --\(setting)", "\(setting)")
        }
    }

    @Test("the S3 variables take effect: a region or endpoint turns S3 on, and malformed values are refused naming the variable")
    func s3VariablesTakeEffect() async throws {
        // Without a source kf serve refuses to start; S3 is one.
        let none = try await Self.s3kf(["serve", "config", "--key", "k"])
        #expect(none.status == 2)
        #expect(none.error.contains("no source is allowed"), "\(none.error)")
        for variable in ["KF_SERVE_S3_REGION", "KF_SERVE_S3_ENDPOINT"] {
            let value = variable == "KF_SERVE_S3_REGION" ? "eu-west-1" : "127.0.0.1:9000"
            let run = try await Self.s3kf(["serve", "config", "--key", "k"], [variable: value])
            #expect(run.status == 0, "\(variable): \(run.error)")
        }
        let cases: [([String], [String: String], String)] = [
            (["--thumbor", "/t"], ["KF_SERVE_THUMBOR_S3_BUCKET": "no/such"], "KF_SERVE_THUMBOR_S3_BUCKET=no/such: not an S3 bucket name"),
            ([], ["KF_SERVE_THUMBOR_S3_BUCKET": "photos"], "KF_SERVE_THUMBOR_S3_BUCKET needs --thumbor PREFIX"),
            ([], ["KF_SERVE_S3_ENDPOINT": "http://"], "S3: the S3 endpoint 'http://' is not an http(s) URL with a host (KF_SERVE_S3_ENDPOINT)"),
            ([], ["KF_SERVE_S3_VIRTUAL_HOSTS": "sometimes"], "KF_SERVE_S3_VIRTUAL_HOSTS=sometimes"),
        ]
        for (arguments, variables, message) in cases {
            let run = try await Self.s3kf(["serve", "run", "--port", "0", "--insecure-unsigned", "--allow-host", "a.example"] + arguments, variables)
            #expect(run.status == 2, "\(variables)")
            #expect(run.error.contains(message), "\(variables): \(run.error)")
        }
    }

    @Test("the region falls back to AWS_REGION, then AWS_DEFAULT_REGION, then us-east-1, naming which")
    func s3RegionFallback() async throws {
        let arguments = ["serve", "config", "--key", "k", "--allow-host", "a.example"]
        let both = try await Self.s3kf(arguments, ["AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "sa-east-1"])
        #expect(Self.line(both.output, "s3-region")?.value == "ap-south-1")
        #expect(Self.line(both.output, "s3-region")?.origin == "variable AWS_REGION")
        let second = try await Self.s3kf(arguments, ["AWS_DEFAULT_REGION": "sa-east-1"])
        #expect(Self.line(second.output, "s3-region")?.value == "sa-east-1")
        #expect(Self.line(second.output, "s3-region")?.origin == "variable AWS_DEFAULT_REGION")
        let neither = try await Self.s3kf(arguments)
        #expect(Self.line(neither.output, "s3-region")?.value == "us-east-1")
        #expect(Self.line(neither.output, "s3-region")?.origin == "default")
    }

    @Test("imgproxy's S3 variables apply only with --imgproxy and IMGPROXY_USE_S3, below the KF_SERVE_ variables")
    func imgproxyS3Variables() async throws {
        let imgproxy = ["IMGPROXY_S3_REGION": "eu-west-1", "IMGPROXY_S3_ENDPOINT": "127.0.0.1:9000",
                        "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE": "false", "IMGPROXY_S3_ALLOWED_BUCKETS": "a,b"]
        let arguments = ["serve", "config", "--key", "k", "--allow-host", "a.example", "--imgproxy", "/i", "--insecure-unsigned"]
        let on = try await Self.s3kf(arguments, imgproxy.merging(["IMGPROXY_USE_S3": "true"]) { $1 })
        #expect(on.status == 0, "\(on.error)")
        let lines = Self.s3Lines(on.output)
        #expect(lines["s3-region"]?.value == "eu-west-1" && lines["s3-region"]?.origin == "variable IMGPROXY_S3_REGION")
        #expect(lines["s3-endpoint"]?.value == "127.0.0.1:9000" && lines["s3-endpoint"]?.origin == "variable IMGPROXY_S3_ENDPOINT")
        // imgproxy's path style off is kf's virtual hosts on.
        #expect(lines["s3-virtual-hosts"]?.value == "true")
        #expect(lines["s3-virtual-hosts"]?.origin == "variable IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE")
        #expect(lines["s3-allow-bucket"]?.value == "a,b" && lines["s3-allow-bucket"]?.origin == "variable IMGPROXY_S3_ALLOWED_BUCKETS")

        // Without IMGPROXY_USE_S3, or without --imgproxy, none of them applies.
        let off = try await Self.s3kf(arguments, imgproxy)
        let withoutMount = try await Self.s3kf(["serve", "config", "--key", "k", "--allow-host", "a.example"],
                                               imgproxy.merging(["IMGPROXY_USE_S3": "true"]) { $1 })
        for run in [off, withoutMount] {
            #expect(run.status == 0, "\(run.error)")
            let lines = Self.s3Lines(run.output)
            #expect(lines["s3-region"]?.value == "us-east-1" && lines["s3-region"]?.origin == "default", "\(run.output)")
            for setting in ["s3-endpoint", "s3-virtual-hosts", "s3-allow-bucket"] {
                #expect(lines[setting]?.origin == "default", "\(setting): \(run.output)")
            }
        }

        let kf = try await Self.s3kf(arguments, imgproxy.merging(["IMGPROXY_USE_S3": "true", "KF_SERVE_S3_REGION": "us-west-2"]) { $1 })
        #expect(Self.line(kf.output, "s3-region")?.value == "us-west-2")
        #expect(Self.line(kf.output, "s3-region")?.origin == "variable KF_SERVE_S3_REGION")
    }

    @Test("thumbor.conf's thumbor-aws loader gives the S3 loader's bucket, root path, region and endpoint, below the flags and variables")
    func thumborAWSLoaderInConf() async throws {
        let conf = try Self.temporaryFile("""
            LOADER = 'thumbor_aws.loader'
            AWS_LOADER_BUCKET_NAME = 'photos'
            AWS_LOADER_REGION_NAME = 'eu-central-1'
            AWS_LOADER_S3_ENDPOINT_URL = 'http://127.0.0.1:9000'
            AWS_LOADER_S3_ACCESS_KEY_ID = 'AKIDEXAMPLE'
            AWS_STORAGE_S3_ACL = 'public-read'
            """)
        defer { try? FileManager.default.removeItem(at: conf.deletingLastPathComponent()) }
        let arguments = ["serve", "config", "--thumbor", "/t", "--insecure-unsigned", "--thumbor-conf", conf.path]
        let run = try await Self.s3kf(arguments)
        #expect(run.status == 0, "\(run.error)")
        let lines = Self.s3Lines(run.output)
        #expect(lines["thumbor-s3-bucket"]?.value == "photos")
        #expect(lines["thumbor-s3-bucket"]?.origin == "file \(conf.path): AWS_LOADER_BUCKET_NAME")
        #expect(lines["s3-region"]?.value == "eu-central-1")
        #expect(lines["s3-region"]?.origin == "file \(conf.path): AWS_LOADER_REGION_NAME")
        #expect(lines["s3-endpoint"]?.value == "http://127.0.0.1:9000")
        #expect(lines["s3-endpoint"]?.origin == "file \(conf.path): AWS_LOADER_S3_ENDPOINT_URL")
        // thumbor-aws's own default root path, as the file names none.
        #expect(lines["thumbor-s3-root-path"]?.value == "/st")
        #expect(lines["thumbor-s3-root-path"]?.origin.hasPrefix("file \(conf.path): LOADER") == true, "\(run.output)")
        let notices = run.error.split(separator: "\n").map(String.init)
        #expect(notices.count == 2, "\(run.error)")
        #expect(notices.contains { $0.contains(":5: AWS_LOADER_S3_ACCESS_KEY_ID is not supported") })
        #expect(notices.contains { $0.contains(":6: AWS_STORAGE_S3_ACL is not supported") })

        let explicit = try await Self.s3kf(arguments + ["--thumbor-s3-bucket", "pics"],
                                           ["KF_SERVE_S3_REGION": "us-west-2", "KF_SERVE_THUMBOR_S3_ROOT_PATH": "images"])
        #expect(explicit.status == 0, "\(explicit.error)")
        let explicitLines = Self.s3Lines(explicit.output)
        #expect(explicitLines["thumbor-s3-bucket"]?.value == "pics" && explicitLines["thumbor-s3-bucket"]?.origin == "flag --thumbor-s3-bucket")
        #expect(explicitLines["s3-region"]?.value == "us-west-2" && explicitLines["s3-region"]?.origin == "variable KF_SERVE_S3_REGION")
        #expect(explicitLines["thumbor-s3-root-path"]?.value == "images")

        // imgproxy's variable outranks the file's, which is named as not read.
        let both = try await Self.s3kf(arguments + ["--imgproxy", "/i"], ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_REGION": "eu-west-1"])
        #expect(both.status == 0, "\(both.error)")
        #expect(Self.line(both.output, "s3-region")?.origin == "variable IMGPROXY_S3_REGION")
        #expect(both.error.contains("file \(conf.path): AWS_LOADER_REGION_NAME is overridden by variable IMGPROXY_S3_REGION for s3-region; not read"),
                "\(both.error)")
    }

    @Test("thumbor.conf: the thumbor-aws loader's root path as given; its settings are read only with its loader and --thumbor")
    func thumborAWSSettingsScope() async throws {
        let rooted = try Self.temporaryFile("LOADER = 'thumbor_aws.loader'\nAWS_LOADER_BUCKET_NAME = 'photos'\nAWS_LOADER_ROOT_PATH = 'images/'\n")
        defer { try? FileManager.default.removeItem(at: rooted.deletingLastPathComponent()) }
        let run = try await Self.s3kf(["serve", "config", "--thumbor", "/t", "--insecure-unsigned", "--thumbor-conf", rooted.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.line(run.output, "thumbor-s3-root-path")?.value == "images/")
        #expect(Self.line(run.output, "thumbor-s3-root-path")?.origin == "file \(rooted.path): AWS_LOADER_ROOT_PATH")

        let httpLoader = try Self.temporaryFile("AWS_LOADER_BUCKET_NAME = 'photos'\n")
        defer { try? FileManager.default.removeItem(at: httpLoader.deletingLastPathComponent()) }
        let http = try await Self.s3kf(["serve", "config", "--thumbor", "/t", "--insecure-unsigned", "--allow-host", "a.example",
                                        "--thumbor-conf", httpLoader.path])
        #expect(http.status == 0, "\(http.error)")
        #expect(Self.line(http.output, "thumbor-s3-bucket")?.origin == "default")
        #expect(http.error.contains(":1: AWS_LOADER_BUCKET_NAME is read only with LOADER = 'thumbor_aws.loader'; not read"), "\(http.error)")

        let unmounted = try await Self.s3kf(["serve", "config", "--key", "k", "--allow-host", "a.example", "--thumbor-conf", rooted.path])
        #expect(unmounted.status == 0, "\(unmounted.error)")
        #expect(Self.line(unmounted.output, "thumbor-s3-bucket")?.origin == "default")
        #expect(unmounted.error.contains(":2: AWS_LOADER_BUCKET_NAME applies to thumbor's URLs"), "\(unmounted.error)")
    }

    @Test("thumbor.conf: thumbor-aws's loader without a bucket, a malformed setting, tc_aws's loader and compatibility mode exit with 2",
          arguments: [
              ("LOADER = 'thumbor_aws.loader'\n", "LOADER = 'thumbor_aws.loader' needs AWS_LOADER_BUCKET_NAME"),
              ("LOADER = 'thumbor_aws.loader'\nAWS_LOADER_BUCKET_NAME = 'no/such'\n", "AWS_LOADER_BUCKET_NAME = 'no/such': not an S3 bucket name"),
              ("LOADER = 'thumbor_aws.loader'\nAWS_LOADER_BUCKET_NAME = ''\n", "AWS_LOADER_BUCKET_NAME = '': an empty bucket name"),
              ("LOADER = 'thumbor_aws.loader'\nAWS_LOADER_BUCKET_NAME = 'p'\nAWS_LOADER_S3_ENDPOINT_URL = 'http://'\n",
               "AWS_LOADER_S3_ENDPOINT_URL = 'http://': not an http(s) URL with a host"),
              ("LOADER = 'thumbor_aws.loader'\nAWS_LOADER_BUCKET_NAME = 'p'\nAWS_LOADER_REGION_NAME = 7\n", "AWS_LOADER_REGION_NAME = 7: not a string"),
              ("LOADER = 'tc_aws.loaders.s3_loader'\n", "tc_aws's loader is not read"),
              ("LOADER = 'thumbor_aws.loader'\nTHUMBOR_AWS_RUN_IN_COMPATIBILITY_MODE = True\n", "THUMBOR_AWS_RUN_IN_COMPATIBILITY_MODE = True"),
          ])
    func thumborAWSRefusals(contents: String, message: String) async throws {
        let conf = try Self.temporaryFile(contents)
        defer { try? FileManager.default.removeItem(at: conf.deletingLastPathComponent()) }
        for command in ["config", "run"] {
            let run = try await Self.s3kf(["serve", command, "--port", "0", "--thumbor", "/t", "--insecure-unsigned", "--thumbor-conf", conf.path])
            #expect(run.status == 2, "\(contents)")
            #expect(run.error.contains(message), "\(contents): \(run.error)")
            #expect(run.error.split(separator: "\n").count == 1, "\(run.error)")
        }
        // A bucket given by its variable is enough.
        if contents == "LOADER = 'thumbor_aws.loader'\n" {
            let given = try await Self.s3kf(["serve", "config", "--thumbor", "/t", "--insecure-unsigned", "--thumbor-conf", conf.path],
                                            ["KF_SERVE_THUMBOR_S3_BUCKET": "photos"])
            #expect(given.status == 0, "\(given.error)")
            #expect(Self.line(given.output, "thumbor-s3-root-path")?.value == "/st")
        }
    }
}
