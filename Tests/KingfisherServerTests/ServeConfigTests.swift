import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve config: flags, KF_SERVE_* variables, imgproxy's variables and thumbor.conf")
struct ServeConfigTests {
    /// Runs `kf` with `arguments` and `variables`, and none of the caller's `KF_SERVE_*`,
    /// `IMGPROXY_*` or `THUMBOR_*` variables.
    static func kf(_ arguments: [String], _ variables: [String: String] = [:]) async throws -> ServeCommandTests.Run {
        var environment = ProcessInfo.processInfo.environment.filter {
            !$0.key.hasPrefix("KF_SERVE_") && !$0.key.hasPrefix("IMGPROXY_") && !$0.key.hasPrefix("THUMBOR_")
        }
        environment.merge(variables) { $1 }
        let run = try await ChildProcess.run(try ShutdownTests.kfURL().path, arguments, environment: environment)
        return ServeCommandTests.Run(status: run.termination.status, output: String(decoding: run.standardOutput, as: UTF8.self),
                                     error: String(decoding: run.standardError, as: UTF8.self))
    }

    /// The value and origin `kf serve config` printed for `setting`.
    static func line(_ output: String, _ setting: String) -> (value: String, origin: String)? {
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.first.map(String.init) == setting, fields.count >= 3 else { continue }
            let rest = line.dropFirst(setting.count).drop(while: { $0 == " " })
            guard let gap = rest.range(of: "  ") else { return (String(rest), "") }
            return (String(rest[..<gap.lowerBound]), String(rest[gap.upperBound...]).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    static func temporaryFile(_ contents: String, name: String = "thumbor.conf") throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-serve-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(contents.utf8).write(to: file)
        return file
    }

    @Test("a flag outranks its KF_SERVE_ variable, which outranks imgproxy's, which outranks the default")
    func precedence() async throws {
        let variables = ["KF_SERVE_PORT": "9100", "IMGPROXY_BIND": ":9200", "KF_SERVE_KEY": "k", "KF_SERVE_ALLOW_HOSTS": "a.example",
                         "IMGPROXY_MAX_SRC_RESOLUTION": "20", "IMGPROXY_TTL": "3600", "KF_SERVE_MAX_AGE": "60"]
        let run = try await Self.kf(["serve", "config", "--port", "9000"], variables)
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.line(run.output, "port")?.value == "9000")
        #expect(Self.line(run.output, "port")?.origin == "flag --port")
        #expect(Self.line(run.output, "host")?.value == "0.0.0.0")
        #expect(Self.line(run.output, "host")?.origin == "variable IMGPROXY_BIND")
        #expect(Self.line(run.output, "max-pixels")?.value == "20000000")
        #expect(Self.line(run.output, "max-pixels")?.origin == "variable IMGPROXY_MAX_SRC_RESOLUTION")
        #expect(Self.line(run.output, "max-age")?.value == "60")
        #expect(Self.line(run.output, "max-age")?.origin == "variable KF_SERVE_MAX_AGE")
        #expect(Self.line(run.output, "key")?.value == "(set)")
        #expect(Self.line(run.output, "max-frames")?.origin == "default")
        #expect(Self.line(run.output, "allow-host")?.origin == "variable KF_SERVE_ALLOW_HOSTS")

        let second = try await Self.kf(["serve", "config"], variables)
        #expect(Self.line(second.output, "port")?.value == "9100")
        #expect(Self.line(second.output, "port")?.origin == "variable KF_SERVE_PORT")
    }

    @Test("every flag has a KF_SERVE_ variable, read with the flag's rules")
    func everyFlagHasAVariable() async throws {
        let variables = ["KF_SERVE_HOST": "0.0.0.0", "KF_SERVE_KEY": "k", "KF_SERVE_ALLOW_HOSTS": "a.example,b.example",
                         "KF_SERVE_ALLOW_ADDRESSES": "10.0.0.0/8", "KF_SERVE_ALLOW_PRIVATE_ADDRESSES": "true",
                         "KF_SERVE_MAX_SOURCE_BYTES": "1000", "KF_SERVE_MAX_FRAMES": "7", "KF_SERVE_UPSTREAM_TIMEOUT": "2.5",
                         "KF_SERVE_KEEP_ORIGINALS": "false", "KF_SERVE_QUALITY": "70", "KF_SERVE_LOG_LEVEL": "debug",
                         "KF_SERVE_INSTANCE": "r1", "KF_SERVE_TRUSTED_PROXIES": "10.1.0.0/16", "KF_SERVE_METRICS_PORT": "9091"]
        let run = try await Self.kf(["serve", "config"], variables)
        #expect(run.status == 0, "\(run.error)")
        let expected = ["host": "0.0.0.0", "allow-host": "a.example,b.example", "allow-address": "10.0.0.0/8",
                        "allow-private-addresses": "true", "max-source-bytes": "1000", "max-frames": "7", "upstream-timeout": "2.5",
                        "keep-originals": "false", "quality": "70", "log-level": "debug", "instance": "r1",
                        "trusted-proxy": "10.1.0.0/16", "metrics-port": "9091"]
        for (setting, value) in expected {
            #expect(Self.line(run.output, setting)?.value == value, "\(setting)")
        }
        // Every setting of the registry has a line.
        for setting in ["port", "memory-mb", "cache-dir", "local-root", "demo", "avif-speed", "thumbor", "imgproxy", "drain-seconds"] {
            #expect(Self.line(run.output, setting) != nil, "\(setting)")
        }
    }

    @Test("a malformed value exits with 2 naming the setting and the value", arguments: [
        (["KF_SERVE_MAX_AGE": "soon"], "KF_SERVE_MAX_AGE=soon"),
        (["KF_SERVE_PORT": "70000"], "KF_SERVE_PORT=70000"),
        (["KF_SERVE_KEEP_ORIGINALS": "maybe"], "KF_SERVE_KEEP_ORIGINALS=maybe"),
        (["IMGPROXY_MAX_SRC_RESOLUTION": "lots"], "IMGPROXY_MAX_SRC_RESOLUTION=lots"),
        (["IMGPROXY_BIND": "8080"], "IMGPROXY_BIND=8080"),
        (["IMGPROXY_TTL": "-1"], "IMGPROXY_TTL=-1"),
    ])
    func malformedValues(variables: [String: String], named: String) async throws {
        var all = ["KF_SERVE_KEY": "k", "KF_SERVE_ALLOW_HOSTS": "a.example"]
        all.merge(variables) { $1 }
        for command in ["config", "run"] {
            let run = try await Self.kf(["serve", command], all)
            #expect(run.status == 2)
            #expect(run.error.contains(named), "\(run.error)")
            #expect(run.error.split(separator: "\n").count == 1, "\(run.error)")
        }
    }

    @Test("imgproxy variables kf serve does not honour are each named once on standard error")
    func unsupportedImgproxyVariables() async throws {
        let run = try await Self.kf(["serve", "config", "--key", "k", "--allow-host", "a.example"], [
            "IMGPROXY_WORKERS": "4", "IMGPROXY_WATERMARK_OPACITY": "0.5", "IMGPROXY_SOMETHING_NEW": "1", "IMGPROXY_KEY": "aa",
        ])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.error.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(run.error)")
        #expect(lines.contains { $0.contains("IMGPROXY_WORKERS is not supported: use --max-jobs") })
        #expect(lines.contains { $0.contains("IMGPROXY_WATERMARK_OPACITY is read only for imgproxy's URLs") })
        #expect(lines.contains { $0.contains("IMGPROXY_SOMETHING_NEW is not an imgproxy setting") })
        #expect(lines.contains { $0.contains("IMGPROXY_KEY is read only for imgproxy's URLs") })
    }

    @Test("imgproxy's watermark and S3 variables are read with --imgproxy, and the ones it does not read are named")
    func watermarkAndS3ImgproxyVariables() async throws {
        let run = try await Self.kf(["serve", "config", "--key", "k", "--allow-host", "a.example", "--imgproxy", "/i", "--insecure-unsigned"], [
            "IMGPROXY_WATERMARK_OPACITY": "0.5", "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_REGION": "eu-west-1",
            "IMGPROXY_S3_ENDPOINT": "127.0.0.1:9000", "IMGPROXY_WATERMARK_CACHE_SIZE": "10",
            "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
        ])
        #expect(run.status == 0, "\(run.error)")
        let lines = run.error.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(run.error)")
        #expect(lines.contains { $0.contains("IMGPROXY_WATERMARK_CACHE_SIZE is not supported: of the watermark settings only") })
    }

    @Test("thumbor.conf: literal settings are read below the variables, the rest are named, malformed ones refused")
    func thumborConf() async throws {
        let conf = try Self.temporaryFile("""
            # thumbor.conf
            import os
            SECURITY_KEY = 'MY_SECURE_KEY'
            ALLOWED_SOURCES = [
                'images.example.com',   # a host
                r'.+\\.cdn\\.example\\.com',
                re.compile(r'^https://bucket\\.example\\.net/public/'),
            ]
            QUALITY = 90
            MAX_AGE = 24 * 60 * 60
            MAX_WIDTH = 1200
            AUTO_WEBP = True
            STORAGE = 'thumbor.storages.file_storage'
            RESPECT_ORIENTATION = True
            SOME_PLUGIN_SETTING = "x"
            """)
        defer { try? FileManager.default.removeItem(at: conf.deletingLastPathComponent()) }
        let run = try await Self.kf(["serve", "config", "--thumbor", "/", "--thumbor-conf", conf.path], ["KF_SERVE_MAX_AGE": "120"])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.line(run.output, "thumbor-key")?.origin == "file \(conf.path): SECURITY_KEY")
        #expect(Self.line(run.output, "allow-host")?.origin == "file \(conf.path): ALLOWED_SOURCES")
        #expect(Self.line(run.output, "max-age")?.value == "120")
        #expect(Self.line(run.output, "thumbor")?.value == "/")
        #expect(run.output.contains("thumbor QUALITY"))
        #expect(run.output.contains("thumbor MAX_WIDTH"))
        let lines = run.error.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(run.error)")
        #expect(lines.contains { $0.contains(":2: 'import os' is not run") })
        #expect(lines.contains { $0.contains(":13: STORAGE is not supported") })
        #expect(lines.contains { $0.contains(":15: SOME_PLUGIN_SETTING is not a thumbor setting") })

        let without = try await Self.kf(["serve", "config", "--thumbor", "/", "--thumbor-conf", conf.path])
        #expect(Self.line(without.output, "max-age")?.value == "86400")
        #expect(Self.line(without.output, "max-age")?.origin == "file \(conf.path): MAX_AGE")

        let bad = try Self.temporaryFile("QUALITY = 'high'\n")
        defer { try? FileManager.default.removeItem(at: bad.deletingLastPathComponent()) }
        let refused = try await Self.kf(["serve", "run", "--thumbor", "/", "--thumbor-conf", bad.path, "--allow-host", "a.example"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("QUALITY = 'high'"), "\(refused.error)")
    }

    @Test("imgproxy's variable outranks thumbor.conf's setting, and the file's value is named as not read")
    func importedConflict() async throws {
        let conf = try Self.temporaryFile("MAX_AGE = 100\nALLOWED_SOURCES = ['a.example']\n")
        defer { try? FileManager.default.removeItem(at: conf.deletingLastPathComponent()) }
        let run = try await Self.kf(["serve", "config", "--key", "k", "--thumbor-conf", conf.path], ["IMGPROXY_TTL": "200"])
        #expect(run.status == 0, "\(run.error)")
        #expect(Self.line(run.output, "max-age")?.value == "200")
        #expect(Self.line(run.output, "allow-host")?.origin == "file \(conf.path): ALLOWED_SOURCES")
        #expect(run.error == "kf serve: file \(conf.path): MAX_AGE is overridden by variable IMGPROXY_TTL for max-age; not read\n")
    }

    @Test("kf serve run --help names each option's variable and says each default once")
    func helpNamesVariables() async throws {
        let run = try await Self.kf(["serve", "run", "--help"])
        #expect(run.status == 0)
        for setting in ServeSettingNames.all {
            #expect(run.output.contains(setting), "\(setting)")
        }
        #expect(run.output.contains("kf serve config"))
    }
}

/// The variables `kf serve run --help` must name.
enum ServeSettingNames {
    static let all = [
        "KF_SERVE_PORT", "KF_SERVE_HOST", "KF_SERVE_KEY", "KF_SERVE_INSECURE_UNSIGNED", "KF_SERVE_ALLOW_HOSTS",
        "KF_SERVE_ALLOW_ADDRESSES", "KF_SERVE_ALLOW_PRIVATE_ADDRESSES", "KF_SERVE_MAX_SOURCE_BYTES", "KF_SERVE_MAX_PIXELS",
        "KF_SERVE_MAX_FRAMES", "KF_SERVE_UPSTREAM_TIMEOUT", "KF_SERVE_PROCESSING_TIMEOUT", "KF_SERVE_MAX_JOBS", "KF_SERVE_MAX_QUEUE",
        "KF_SERVE_MAX_AGE", "KF_SERVE_MEMORY_MB", "KF_SERVE_CACHE_DIR", "KF_SERVE_LOCAL_ROOT", "KF_SERVE_DEMO",
        "KF_SERVE_DEMO_SAMPLES", "KF_SERVE_AVIF_SPEED", "KF_SERVE_THUMBOR", "KF_SERVE_THUMBOR_KEY", "KF_SERVE_THUMBOR_CONF",
        "KF_SERVE_IMGPROXY", "KF_SERVE_IMGPROXY_KEY", "KF_SERVE_IMGPROXY_SALT", "KF_SERVE_MAX_REDIRECTS", "KF_SERVE_KEEP_ORIGINALS",
        "KF_SERVE_QUALITY", "KF_SERVE_LOG_LEVEL", "KF_SERVE_DRAIN_SECONDS", "KF_SERVE_INSTANCE", "KF_SERVE_TRUSTED_PROXIES",
        "KF_SERVE_METRICS_PORT", "KF_SERVE_S3_REGION", "KF_SERVE_S3_ENDPOINT", "KF_SERVE_S3_VIRTUAL_HOSTS", "KF_SERVE_S3_ALLOW_BUCKETS",
        "KF_SERVE_THUMBOR_S3_BUCKET", "KF_SERVE_THUMBOR_S3_ROOT_PATH",
    ]
}

@Suite("kf serve --metrics-port")
struct MetricsPortTests {
    @Test("/metrics and /health on a listener of their own; the public port no longer answers /metrics")
    func separateListener() async throws {
        try await FleetServe.run(["--metrics-port", "0"]) { serve, origin in
            let line = try await serve.output.line(containing: "kf serve: metrics on ")
            let url = try #require(line.split(separator: " ").last.map(String.init))
            let metricsBase = String(url.dropLast("/metrics".count))
            origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            #expect(try await serve.get(serve.path(origin.url("/a.jpg"))).status == 200)
            let publicMetrics = try await serve.get("/metrics")
            #expect(publicMetrics.status == 404)
            #expect(publicMetrics.text.contains("/metrics is on the metrics port"), "\(publicMetrics.text)")
            #expect(try await serve.get("/health").status == 200)

            let metricsServe = FleetServe(process: serve.process, base: metricsBase, port: serve.port, output: serve.output,
                                          cacheFolder: serve.cacheFolder, client: serve.client)
            let metrics = try await metricsServe.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("kf_serve_requests_total{route=\"image\",status=\"200\""), "\(metrics.text)")
            #expect(try await metricsServe.get("/health").text == "ok\n")
            #expect(try await metricsServe.get(serve.path(origin.url("/a.jpg"))).status == 404)
        }
    }
}
