import Foundation
import KingfisherTestServer
import Testing
@testable import KingfisherServer

@Suite("kf serve names its replica and its clients")
struct FleetReplicaTests {
    @Test("--instance: in every request log line, as replica=\"NAME\" on every metric, in X-Kf-Replica on every response")
    func instanceName() async throws {
        try await FleetServe.run(["--instance", "fleet-a.1", "--trusted-proxy", "127.0.0.0/8"]) { serve, origin in
            origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            let answers = [
                try await serve.get(serve.path(origin.url("/a.jpg"))),
                try await serve.get("/health"),
                try await serve.get("/favicon.ico"),
                try await serve.get("/unsafe/png/downsample(8x8)/not-base64"),
            ]
            #expect(answers.prefix(3).map(\.status) == [200, 200, 404])
            #expect((400..<500).contains(answers[3].status))
            for answer in answers { #expect(answer.header("X-Kf-Replica") == "fleet-a.1") }

            let metrics = try await serve.get("/metrics")
            #expect(metrics.header("X-Kf-Replica") == "fleet-a.1")
            let samples = metrics.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            #expect(samples.count > 10)
            for sample in samples { #expect(sample.contains(#"replica="fleet-a.1""#), "\(sample)") }
            #expect(samples.contains { $0.hasPrefix(#"kf_serve_requests_total{route="image",status="200",grammar="native",replica="fleet-a.1"} 1"#) })
            #expect(samples.contains { $0.hasPrefix(#"kf_serve_cache_total{tier="origin",replica="fleet-a.1"} 1"#) })

            // The trusted peer (127.0.0.1) forwards for a client: the log names the client.
            _ = try await serve.get("/health", headers: [("X-Forwarded-For", "198.51.100.23, 127.0.0.9")])
            _ = try await serve.get("/health", headers: [("Forwarded", #"for="[2001:db8::17]:4711";proto=http"#)])
            let requestLines = try await Self.requestLines(serve, count: 7)
            for line in requestLines { #expect(line.contains("instance=fleet-a.1"), "\(line)") }
            #expect(requestLines[0].contains("client=127.0.0.1") && requestLines[0].contains("GET /"))
            #expect(requestLines[0].contains("grammar=native") && !requestLines[1].contains("grammar="), "\(requestLines[0])")
            #expect(requestLines[5].contains("client=198.51.100.23"))
            #expect(requestLines[6].contains("client=2001:db8::17"))
        }
    }

    @Test("without --instance the replica is the host name; without --trusted-proxy forwarding headers are ignored")
    func defaults() async throws {
        try await FleetServe.run([]) { serve, _ in
            let answer = try await serve.get("/health", headers: [
                ("X-Forwarded-For", "198.51.100.23"), ("Forwarded", "for=203.0.113.9"),
            ])
            #expect(answer.header("X-Kf-Replica") == Self.hostName())
            let line = try await serve.output.line(containing: "GET /health")
            #expect(line.contains("instance=\(Self.hostName())"))
            #expect(line.contains("client=127.0.0.1"))
            #expect(!line.contains("198.51.100.23") && !line.contains("203.0.113.9"))
        }
    }

    @Test("a bad --instance or --trusted-proxy is a usage error", arguments: [
        ["--instance", "two words"], ["--instance", "quote\"d"], ["--instance", ""],
        ["--trusted-proxy", "10.0.0.0/33"], ["--trusted-proxy", "proxy.example"], ["--trusted-proxy", "::1/129"],
    ])
    func badFlags(_ flags: [String]) async throws {
        let run = try await ChildProcess.run(
            try ShutdownTests.kfURL().path, ["serve", "--port", "0", "--key", "k", "--allow-host", "a.example"] + flags,
            environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KF_SERVE_") }, timeLimit: 30)
        #expect(run.termination == .exited(2))
        #expect(String(decoding: run.standardError, as: UTF8.self).contains(flags[0]))
    }

    /// The first `count` request lines of the log (those with a `status=`), waiting for them.
    @Test("the grammar of each image request: in its log line and as the grammar label of kf_serve_requests_total")
    func grammarNamed() async throws {
        try await FleetServe.run(["--instance", "g", "--thumbor", "/thumbor", "--imgproxy", "/imgproxy", "--insecure-unsigned"]) { serve, origin in
            origin.route("/a.jpg", .ok(ServeKit.jpeg, contentType: "image/jpeg"))
            let source = origin.url("/a.jpg").absoluteString
            let hostPath = source.replacingOccurrences(of: "http://", with: "")
            let answers = [
                try await serve.get(serve.path(origin.url("/a.jpg"))),
                try await serve.get("/thumbor/unsafe/16x16/\(hostPath)"),
                try await serve.get("/imgproxy/insecure/rs:fit:16:16/plain/\(source)"),
            ]
            #expect(answers.map(\.status) == [200, 200, 200], "\(answers.map(\.text))")
            let lines = try await Self.requestLines(serve, count: 3)
            #expect(zip(lines, ["native", "thumbor", "imgproxy"]).allSatisfy { $0.contains("grammar=\($1)") }, "\(lines)")
            let metrics = try await serve.get("/metrics").text
            for grammar in ["native", "thumbor", "imgproxy"] {
                #expect(metrics.contains(#"kf_serve_requests_total{route="image",status="200",grammar="\#(grammar)",replica="g"} 1"#), "\(grammar)")
            }
        }
    }

    static func requestLines(_ serve: FleetServe, count: Int) async throws -> [String] {
        while true {
            let lines = serve.output.lines.filter { $0.contains(" status=") }
            if lines.count >= count { return Array(lines.prefix(count)) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// This machine's host name, as `gethostname` gives it.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, buffer.count - 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
