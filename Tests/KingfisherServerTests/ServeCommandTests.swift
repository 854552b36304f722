import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve command line")
struct ServeCommandTests {
    struct Run {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs `kf` with `arguments` and no `KF_SERVE_*` variables, and waits for it.
    static func kf(_ arguments: [String]) async throws -> Run {
        let run = try await ChildProcess.run(
            try ShutdownTests.kfURL().path, arguments,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KF_SERVE_") })
        return Run(status: run.termination.status, output: String(decoding: run.standardOutput, as: UTF8.self),
                   error: String(decoding: run.standardError, as: UTF8.self))
    }

    @Test("kf serve sign prints one signed path per source, the server's own spelling")
    func sign() async throws {
        let sources = ["https://img.example.com/a.jpg", "http://127.0.0.1:8000/b c.png"]
        let run = try await Self.kf(["serve", "sign", "--key", "k1", "--processor", "downsample(200x200)|>round(20)", "--format", "webp"]
            + sources)
        #expect(run.status == 0, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let signer = URLSigner(key: Data("k1".utf8))
        for (line, source) in zip(lines, sources) {
            let url = try #require(URL(string: source) ?? URL(string: source.replacingOccurrences(of: " ", with: "%20")))
            #expect(line == ImagePath(source: url, spec: "downsample(200x200)|>round(20)", format: .webp, signer: signer).path)
            #expect(line.contains("/webp/downsample(200x200)%7C%3Eround(20)/"))
        }
    }

    @Test("a port in use is one line naming the address, exit 1")
    func busyPort() async throws {
        let busy = try await TestHTTPServer.start()
        // Bounded: were the port free after all, kf serve would run until stopped.
        let run = try await ChildProcess.run(
            try ShutdownTests.kfURL().path, ["serve", "--port", "\(busy.port)", "--key", "k", "--allow-host", "a.example"],
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KF_SERVE_") }, timeLimit: 60)
        try await busy.shutdown()
        #expect(run.termination == .exited(1))
        #expect(String(decoding: run.standardError, as: UTF8.self)
            == "kf: could not listen on 127.0.0.1:\(busy.port): the address is already in use\n")
    }

    @Test("kf serve sign points at a processor spec's mistake and suggests the name")
    func signSpecMistakes() async throws {
        let run = try await Self.kf(["serve", "sign", "--key", "k", "--processor", "downsample(64x64)|>rund(8)", "https://a.example/x.jpg"])
        #expect(run.status == 2)
        #expect(run.error == "kf: bad --processor: in 'rund(8)': unknown processor 'rund' at column 20; did you mean 'round'? "
            + "(see 'kf serve sign --help')\n")
    }

    @Test("usage errors exit with 2 and one line", arguments: [
        ["serve", "sign", "https://a.example/x.jpg"],
        ["serve", "sign", "--key", "k", "ftp://a.example/x.jpg"],
        ["serve", "sign", "--key", "k", "--format", "tiff", "https://a.example/x.jpg"],
        ["serve", "sign", "--key", "k", "--processor", "blur(", "https://a.example/x.jpg"],
        ["serve", "--port", "0", "--allow-host", "a.example"],
        ["serve", "--port", "0", "--key", "k"],
        ["serve", "--port", "70000", "--key", "k", "--allow-host", "a.example"],
        ["serve", "--port", "0", "--key", "k", "--allow-host", "a.example", "--allow-address", "127.0.0.0/33"],
        ["serve", "--port", "0", "--key", "k", "--allow-host", "a.example", "--allow-address", "127.0.0.1, localhost"],
    ])
    func usageErrors(arguments: [String]) async throws {
        let run = try await Self.kf(arguments)
        #expect(run.status == 2)
        #expect(run.error.hasPrefix("kf: "))
        #expect(run.error.split(separator: "\n").count == 1, "\(run.error)")
    }

    @Test("--allow-host and --allow-address take comma-separated lists, and --allow-address takes ranges")
    func commaSeparatedAllowances() async throws {
        let allowances = ["--allow-host", "a.example, 127.0.0.1 ,b.example", "--allow-address", "10.0.0.0/8, 127.0.0.0/8"]
        try await FleetServe.run([], allowances: allowances) { serve, origin in
            origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            let answer = try await serve.get(serve.path(origin.url("/a.jpg")))
            #expect(answer.status == 200, "\(answer.text)")
        }
        try await FleetServe.run([], allowances: ["--allow-host", "a.example,b.example", "--allow-address", "127.0.0.1"]) { serve, origin in
            origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            let answer = try await serve.get(serve.path(origin.url("/a.jpg")))
            #expect(answer.status == 403)
            #expect(answer.text.contains("not in the allow-list (kf serve --allow-host)"), "\(answer.text)")
        }
    }

    @Test("kf serve --help is run's help: every option, each default said once, and sign named")
    func serveHelp() async throws {
        let run = try await Self.kf(["serve", "--help"])
        #expect(run.status == 0)
        for option in ["--allow-host", "--allow-address", "--max-jobs", "--avif-speed", "--drain-seconds", "--thumbor"] {
            #expect(run.output.contains(option), "\(option)")
        }
        #expect(run.output.contains("kf serve sign"))
        // One entry per option: the lines from "  --name" to the next such line.
        var entries: [String] = []
        for line in run.output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  -") { entries.append(String(line)) } else if !entries.isEmpty { entries[entries.count - 1] += " " + line }
        }
        #expect(entries.count > 20)
        for entry in entries {
            #expect(entry.components(separatedBy: "(default").count <= 2, "\(entry)")
        }
        let overview = try await Self.kf(["help", "serve"])
        #expect(overview.output.contains("/SIGNATURE/FORMAT/SPEC/SOURCE"))
    }

    @Test("Last-Modified is never later than the response's Date, for fresh, disk and memory answers")
    func lastModifiedNotAfterDate() async throws {
        try await FleetServe.run([]) { serve, origin in
            origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            for side in 8..<14 {
                let path = serve.path(origin.url("/a.jpg"), spec: "downsample(\(side)x\(side))")
                for _ in 0..<3 {
                    let answer = try await serve.get(path)
                    #expect(answer.status == 200)
                    let modified = try #require(answer.header("Last-Modified").flatMap(ImageServer.parseHTTPDate))
                    let date = try #require(answer.header("Date").flatMap(ImageServer.parseHTTPDate))
                    #expect(modified <= date, "Last-Modified \(answer.header("Last-Modified") ?? "") after Date \(answer.header("Date") ?? "")")
                }
            }
        }
    }
}
