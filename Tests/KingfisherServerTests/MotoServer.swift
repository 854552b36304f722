import AsyncHTTPClient
import Foundation
import KingfisherSynchronization
import KingfisherTestServer
import Testing
@testable import KingfisherServer

/// moto's S3, IAM and STS in server mode on 127.0.0.1, a child of the test, with its signature
/// check switched on once the test's objects and users are made.
///
/// moto comes from PyPI into a venv (`scripts/moto-venv.sh`): `$KF_MOTO_VENV`, else
/// `~/.cache/kf-moto/venv`. Every request the test makes is signed with ``AWSSignatureV4``, so
/// moto (which checks signatures with botocore) checks the signer too.
struct MotoServer: Sendable {
    let process: ChildProcess
    /// `http://127.0.0.1:PORT`.
    let endpoint: URL
    let client: HTTPClient

    /// The venv holding moto.
    static var venv: String {
        let environment = ProcessInfo.processInfo.environment
        if let venv = environment["KF_MOTO_VENV"], !venv.isEmpty { return venv }
        return "\(environment["HOME"] ?? "/root")/.cache/kf-moto/venv"
    }

    /// Whether moto's server is installed where ``venv`` says.
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: "\(venv)/bin/moto_server") }

    /// Credentials for the setup, while moto checks nothing.
    static let setupCredentials = AWSCredentials(accessKeyID: "AKIAKFSETUP000000000", secretAccessKey: "setup")

    /// Runs `body` with a fresh moto server, stopped afterwards.
    static func with(_ body: @Sendable (MotoServer) async throws -> Void) async throws {
        let moto = try await start()
        do {
            try await body(moto)
        } catch {
            await moto.stop()
            throw error
        }
        await moto.stop()
    }

    /// Starts moto on a free port and waits for the line naming it. moto exits by itself when the
    /// test process is gone, so a crashed test leaves no server behind.
    static func start() async throws -> MotoServer {
        let script = """
            import os, sys, threading, time
            parent = os.getppid()
            def watch():
                while os.getppid() == parent:
                    time.sleep(0.5)
                os._exit(0)
            threading.Thread(target=watch, daemon=True).start()
            from moto.server import main
            main(["-H", "127.0.0.1", "-p", "0"])
            """
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        let process = try ChildProcess("\(venv)/bin/python", ["-c", script], environment: environment,
                                       standardOutput: .pipe, standardError: .standardOutput)
        let output = MotoOutput()
        process.readStandardOutput { output.append($0) }
        do {
            let port = try await withWatchdog(.seconds(60)) { try await output.port() }
            let endpoint = try #require(URL(string: "http://127.0.0.1:\(port)"))
            return MotoServer(process: process, endpoint: endpoint, client: HTTPClient(eventLoopGroupProvider: .singleton))
        } catch {
            process.signal(SIGKILL)
            _ = await process.exited()
            throw error
        }
    }

    /// Stops moto and the client. SIGKILL, as a child inherits the test process's ignored SIGTERM.
    func stop() async {
        try? await client.shutdown()
        process.signal(SIGKILL)
        _ = await process.exited()
    }

    /// An answer from moto.
    struct Answer: Sendable {
        let status: Int
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }

        /// The text of the first `<name>` element.
        func element(_ name: String) -> String? {
            guard let start = text.range(of: "<\(name)>"), let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex) else {
                return nil
            }
            return String(text[start.upperBound..<end.lowerBound])
        }
    }

    /// Sends a request signed for `service` with `credentials`.
    func send(service: String, method: String, path: String = "/", body: Data = Data(), contentType: String? = nil,
              credentials: AWSCredentials = setupCredentials) async throws -> Answer {
        let host = "\(endpoint.host ?? "127.0.0.1"):\(endpoint.port ?? 80)"
        let date = Date()
        let payloadHash = AWSSignatureV4.payloadHash(body)
        var headers: [(name: String, value: String)] = [
            ("host", host), ("x-amz-date", AWSSignatureV4.timestamp(date)), ("x-amz-content-sha256", payloadHash),
        ]
        if let contentType { headers.append(("content-type", contentType)) }
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let signer = AWSSignatureV4(credentials: credentials, region: "us-east-1", service: service)
        let signed = signer.sign(method: method, encodedPath: path, headers: headers, payloadHash: payloadHash, date: date)
        var request = HTTPClientRequest(url: endpoint.absoluteString + path)
        request.method = .init(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Authorization", value: signed.authorization)
        request.body = .bytes(Array(body))
        let response = try await client.execute(request, timeout: .seconds(30))
        let received = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), body: Data(buffer: received))
    }

    /// Sends a form-encoded query API call (IAM, STS) and requires a 200.
    @discardableResult
    func call(_ service: String, _ parameters: [(String, String)], credentials: AWSCredentials = setupCredentials) async throws -> Answer {
        let form = parameters.map { "\(AWSSignatureV4.uriEncode($0.0, keepingSlashes: false))=\(AWSSignatureV4.uriEncode($0.1, keepingSlashes: false))" }
            .joined(separator: "&")
        let answer = try await send(service: service, method: "POST", body: Data(form.utf8),
                                    contentType: "application/x-www-form-urlencoded; charset=utf-8", credentials: credentials)
        #expect(answer.status == 200, "\(service) \(parameters.first?.1 ?? ""): \(answer.text)")
        return answer
    }

    /// Stores `data` as `bucket/key` (the setup's credentials) and requires a 200.
    func put(_ data: Data, bucket: String, key: String) async throws {
        let answer = try await send(service: "s3", method: "PUT",
                                    path: "/\(bucket)/\(AWSSignatureV4.uriEncode(key, keepingSlashes: true))", body: data)
        #expect(answer.status == 200, "PUT \(bucket)/\(key): \(answer.text)")
    }

    /// Makes `bucket`.
    func createBucket(_ bucket: String) async throws {
        let answer = try await send(service: "s3", method: "PUT", path: "/\(bucket)")
        #expect(answer.status == 200, "CreateBucket \(bucket): \(answer.text)")
    }

    /// An IAM user allowed `s3:GetObject` on `resource` (`bucket/prefix*`), and its new access key.
    func user(_ name: String, reading resource: String) async throws -> AWSCredentials {
        try await call("iam", [("Action", "CreateUser"), ("UserName", name), ("Version", "2010-05-08")])
        let key = try await call("iam", [("Action", "CreateAccessKey"), ("UserName", name), ("Version", "2010-05-08")])
        try await call("iam", [("Action", "PutUserPolicy"), ("UserName", name), ("PolicyName", "read"),
                               ("PolicyDocument", Self.readPolicy(resource)), ("Version", "2010-05-08")])
        return AWSCredentials(accessKeyID: try #require(key.element("AccessKeyId")),
                              secretAccessKey: try #require(key.element("SecretAccessKey")), origin: "AWS_ACCESS_KEY_ID")
    }

    /// Temporary credentials (with a session token) of a role allowed `s3:GetObject` on `resource`.
    func roleSession(_ name: String, reading resource: String) async throws -> AWSCredentials {
        let trust = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}]}"#
        let role = try await call("iam", [("Action", "CreateRole"), ("RoleName", name), ("AssumeRolePolicyDocument", trust),
                                          ("Version", "2010-05-08")])
        try await call("iam", [("Action", "PutRolePolicy"), ("RoleName", name), ("PolicyName", "read"),
                               ("PolicyDocument", Self.readPolicy(resource)), ("Version", "2010-05-08")])
        let session = try await call("sts", [("Action", "AssumeRole"), ("RoleArn", try #require(role.element("Arn"))),
                                             ("RoleSessionName", "kf-test"), ("Version", "2011-06-15")])
        let token = try #require(session.element("SessionToken"))
        return AWSCredentials(accessKeyID: try #require(session.element("AccessKeyId")),
                              secretAccessKey: try #require(session.element("SecretAccessKey")),
                              sessionToken: token, origin: "AWS_ACCESS_KEY_ID")
    }

    /// From now on every request must be signed by a known key and allowed by its policies.
    func requireSignatures() async throws {
        var request = HTTPClientRequest(url: endpoint.absoluteString + "/moto-api/reset-auth")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "text/plain")
        request.body = .bytes(Array("0".utf8))
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 16)
        #expect(response.status.code == 200)
    }

    static func readPolicy(_ resource: String) -> String {
        #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::\#(resource)"}]}"#
    }
}

/// moto's output, read until it names its port.
final class MotoOutput: Sendable {
    private let state = Mutex<(text: String, waiter: CheckedContinuation<Int, any Error>?)>(("", nil))

    func append(_ chunk: Data) {
        let ready = state.withLock { state -> (waiter: CheckedContinuation<Int, any Error>, port: Int)? in
            state.text += String(decoding: chunk, as: UTF8.self)
            guard let port = Self.port(in: state.text), let waiter = state.waiter else { return nil }
            state.waiter = nil
            return (waiter, port)
        }
        if let ready { ready.waiter.resume(returning: ready.port) }
    }

    /// The port of `Running on http://127.0.0.1:PORT`, once moto has written it.
    func port() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let port = state.withLock { state -> Int? in
                if let port = Self.port(in: state.text) { return port }
                state.waiter = continuation
                return nil
            }
            if let port { continuation.resume(returning: port) }
        }
    }

    private static func port(in text: String) -> Int? {
        guard let range = text.range(of: "Running on http://127.0.0.1:") else { return nil }
        let digits = text[range.upperBound...].prefix { $0.isNumber }
        return digits.isEmpty || text[range.upperBound...].count == digits.count ? nil : Int(digits)
    }
}
