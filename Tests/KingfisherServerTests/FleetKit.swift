import AsyncHTTPClient
import Foundation
import KingfisherSynchronization
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// A `kf serve` child process in front of the test's own origin, for the fleet tests.
struct FleetServe: Sendable {
    static let key = "fleet-test-key"

    let process: ChildProcess
    /// `http://127.0.0.1:PORT`.
    let base: String
    let port: Int
    /// Everything the process wrote, standard output and error together (the request log is on error).
    let output: FleetLog
    /// The folder given as `--cache-dir`.
    let cacheFolder: URL
    let client: HTTPClient

    /// An answer: status, headers and body.
    struct Answer: Sendable {
        let status: Int
        /// Values by lowercased name.
        let headers: [String: [String]]
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }

        /// The first value of the header `name`.
        func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
    }

    /// Starts `kf serve` on a free port with `arguments` after the common ones (signed with ``key``,
    /// allowing 127.0.0.1, `cacheFolder` or a fresh one), `variables` added to the environment, and waits until it listens.
    /// The sources every test server may fetch: the loopback origin.
    static let loopbackAllowances = ["--allow-host", "127.0.0.1", "--allow-address", "127.0.0.1"]

    static func start(
        _ arguments: [String], cacheFolder: URL? = nil, allowances: [String] = loopbackAllowances, variables: [String: String] = [:]
    ) async throws -> FleetServe {
        let folder = cacheFolder ?? FileManager.default.temporaryDirectory.appendingPathComponent("kf-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = try ChildProcess(try ShutdownTests.kfURL().path, [
            "serve", "--port", "0", "--key", key] + allowances + [
            "--cache-dir", folder.path, "--upstream-timeout", "60", "--processing-timeout", "60",
        ] + arguments, environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("KF_SERVE_") }.merging(variables) { $1 },
        standardOutput: .pipe, standardError: .standardOutput)
        let output = FleetLog()
        process.readStandardOutput { output.append($0) }
        let base: String
        let port: Int
        do {
            let line = try await withWatchdog(.seconds(30)) { try await output.line(containing: "kf serve: listening on ") }
            base = try #require(line.split(separator: " ").last.map(String.init))
            port = try #require(base.split(separator: ":").last.flatMap { Int($0) })
        } catch {
            process.signal(SIGKILL)
            _ = await process.exited()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        return FleetServe(process: process, base: base, port: port, output: output, cacheFolder: folder, client: client)
    }

    /// The signed path of `url` processed by `spec` as PNG.
    func path(_ url: URL, spec: String = "downsample(16x16)") -> String {
        ImagePath(source: url, spec: spec, format: .png, signer: URLSigner(key: Data(Self.key.utf8))).path
    }

    /// GETs `path`, with `headers`.
    func get(_ path: String, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 22)
        var headers: [String: [String]] = [:]
        for (name, value) in response.headers { headers[name.lowercased(), default: []].append(value) }
        return Answer(status: Int(response.status.code), headers: headers, body: Data(buffer: body))
    }

    /// Polls `path` until its status is `status`; each poll is a request, the whole wait bounded by the caller's watchdog.
    func waitForStatus(_ status: Int, of path: String) async throws -> Answer {
        while true {
            let answer = try await get(path)
            if answer.status == status { return answer }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether a new TCP connection to the server's port is accepted.
    func isAccepting() -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0
    }

    /// Ends the process if it still runs, shuts the client down and removes the cache folder.
    func finish() async {
        process.signal(SIGKILL)
        _ = await process.exited()
        try? await client.shutdown()
        try? FileManager.default.removeItem(at: cacheFolder)
    }

    /// Runs `body` with a server started with `arguments` and an origin, under a watchdog;
    /// everything is stopped and removed afterwards, also on failure.
    static func run(
        _ arguments: [String], seconds: Int = 60, allowances: [String] = loopbackAllowances,
        _ body: @escaping @Sendable (FleetServe, TestHTTPServer) async throws -> Void
    ) async throws {
        let origin = try await TestHTTPServer.start()
        let serve: FleetServe
        do {
            serve = try await start(arguments, allowances: allowances)
        } catch {
            try? await origin.shutdown()
            throw error
        }
        do {
            try await withWatchdog(.seconds(seconds)) { try await body(serve, origin) }
        } catch {
            await serve.finish()
            try? await origin.shutdown()
            throw error
        }
        await serve.finish()
        try await origin.shutdown()
    }
}

/// Everything a child wrote, kept whole so a test can read every line.
final class FleetLog: Sendable {
    private let text = Mutex("")

    func append(_ data: Data) {
        text.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }

    /// The complete lines so far.
    var lines: [String] {
        text.withLock { text in
            text.split(separator: "\n", omittingEmptySubsequences: true).dropLast(text.hasSuffix("\n") ? 0 : 1).map(String.init)
        }
    }

    /// The first complete line holding `needle`, polling until it comes (bounded by the caller's watchdog).
    func line(containing needle: String) async throws -> String {
        while true {
            if let line = lines.first(where: { $0.contains(needle) }) { return line }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
