import AsyncHTTPClient
import Foundation
import KingfisherTestServer
import KingfisherSynchronization
import Testing
@testable import KingfisherServer

@Suite("kf serve shutdown")
struct ShutdownTests {
    /// The `kf` executable built next to the test bundle.
    static func kfURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("kf")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "kf next to \(CommandLine.arguments[0])"])
    }

    @Test("SIGTERM during 50 in-flight requests: every one is answered, then kf serve exits with 0")
    func sigtermDuringRequests() async throws {
        let origin = try await TestHTTPServer.start()
        let gate = TestGate()
        for index in 0..<50 { origin.route("/\(index).jpg", .held(ServeKit.jpeg, gate: gate)) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kf-serve-sigterm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = "sigterm-test-key"
        let process = try ChildProcess(try Self.kfURL().path, [
            "serve", "--port", "0", "--key", key, "--allow-host", "127.0.0.1", "--allow-address", "127.0.0.1",
            "--max-jobs", "64", "--cache-dir", folder.path, "--log-level", "error", "--drain-seconds", "0",
            // The origin is held until all 50 are in flight, which a sanitizer build can take
            // longer than the default 10 s upstream timeout to reach.
            "--upstream-timeout", "60", "--processing-timeout", "60",
        ], standardOutput: .pipe, standardError: .inherit)
        let output = LineReader()
        process.readStandardOutput { output.append($0) }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(
            connectionPool: .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)))
        do {
            try await withWatchdog(.seconds(60)) {
                let line = await output.firstLine(containing: "listening on ")
                let base = try #require(line.split(separator: " ").last.map(String.init))
                let signer = URLSigner(key: Data(key.utf8))
                try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                    for index in 0..<50 {
                        let path = ImagePath(source: origin.url("/\(index).jpg"), spec: "downsample(16x16)", format: .png, signer: signer).path
                        group.addTask {
                            let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .seconds(50))
                            let body = try await response.body.collect(upTo: 1 << 20)
                            return (Int(response.status.code), body.readableBytes)
                        }
                    }
                    while try await Self.inFlight(client: client, base: base) < 50 {
                        try await Task.sleep(for: .milliseconds(5))
                    }
                    process.signal(SIGTERM)
                    gate.open()
                    var answered = 0
                    for try await (status, bytes) in group {
                        #expect(status == 200)
                        #expect(bytes > 0)
                        answered += 1
                    }
                    #expect(answered == 50)
                }
                #expect(await process.exited() == .exited(0))
            }
        } catch {
            process.signal(SIGKILL)
            _ = await process.exited()
            try? await client.shutdown()
            try? await origin.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
    }

    /// `kf_serve_requests_in_flight` from `/metrics` (labelled with the replica or not).
    static func inFlight(client: HTTPClient, base: String) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        let line = text.split(separator: "\n").first {
            $0.hasPrefix("kf_serve_requests_in_flight ") || $0.hasPrefix("kf_serve_requests_in_flight{")
        }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }.map { Int($0) } ?? 0
    }
}

/// Collects a child's output and hands out the first line holding some text once it arrives.
final class LineReader: Sendable {
    private struct State {
        var text = ""
        var waiters: [(needle: String, continuation: CheckedContinuation<String, Never>)] = []
    }

    private let state = Mutex(State())

    func append(_ data: Data) {
        let ready = state.withLock { state -> [(CheckedContinuation<String, Never>, String)] in
            state.text += String(decoding: data, as: UTF8.self)
            var ready: [(CheckedContinuation<String, Never>, String)] = []
            state.waiters.removeAll { waiter in
                guard let line = Self.line(in: state.text, containing: waiter.needle) else { return false }
                ready.append((waiter.continuation, line))
                return true
            }
            return ready
        }
        for (continuation, line) in ready { continuation.resume(returning: line) }
    }

    func firstLine(containing needle: String) async -> String {
        await withCheckedContinuation { continuation in
            let line = state.withLock { state -> String? in
                if let line = Self.line(in: state.text, containing: needle) { return line }
                state.waiters.append((needle, continuation))
                return nil
            }
            if let line { continuation.resume(returning: line) }
        }
    }

    private static func line(in text: String, containing needle: String) -> String? {
        text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1)
            .first { $0.contains(needle) }.map(String.init)
    }
}
