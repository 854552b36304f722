import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Connection failures read as one plain line naming the host and port and what happened, never
/// as NIO's errno text or BoringSSL's file paths.
@Suite struct NetworkFailureTests {
    /// The error a download of `url` fails with.
    static func failure(of url: URL) async throws -> KingfisherError {
        struct Succeeded: Error {}
        let downloader = ImageDownloader(name: "network-failure")
        let outcome: Result<ImageLoadingResult, any Error>
        do {
            outcome = .success(try await downloader.downloadImage(with: url))
        } catch {
            outcome = .failure(error)
        }
        try await downloader.shutdown()
        switch outcome {
        case .failure(let error as KingfisherError): return error
        case .failure(let error): throw error
        case .success: throw Succeeded()
        }
    }

    @Test func aRefusedConnectionNamesTheHostAndPort() async throws {
        let closed = try RefusingPort()
        defer { closed.close() }
        let url = closed.url("/a.png")
        let error = try await Self.failure(of: url)
        guard case .responseError(reason: .URLSessionError) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        let failure = try #require(NetworkFailure(error))
        #expect(failure.stage == .connecting && !failure.timedOut)
        #expect(failure.description(for: url) == "could not connect to 127.0.0.1:\(closed.port): connection refused")
        let sentence = try #require(error.errorDescription)
        #expect(sentence.hasPrefix("Could not connect") && sentence.hasSuffix(": connection refused."), "\(sentence)")
        #expect(!sentence.contains("errno") && !sentence.contains("(error set)"), "\(sentence)")
    }

    @Test func anUntrustedCertificateSaysSoWithoutPaths() async throws {
        let server = try await TestHTTPServer.start(tls: true)
        server.route("/a.png", .ok(Data("x".utf8)))
        let url = server.url("/a.png")
        let error = try await Self.failure(of: url)
        try await server.shutdown()
        let failure = try #require(NetworkFailure(error), "\(error)")
        #expect(failure.stage == .tlsHandshake)
        #expect(failure.description(for: url) == "TLS handshake with localhost:\(server.port) failed: the certificate is not trusted")
        let sentence = try #require(error.errorDescription)
        #expect(sentence == "TLS handshake failed: the certificate is not trusted.", "\(sentence)")
        #expect(!sentence.contains("/") && !sentence.contains(".cc"), "\(sentence)")
    }

    @Test func aListeningFailureNamesTheAddress() throws {
        let busy = try #require(NetworkFailure(listening: POSIXError(.EADDRINUSE)))
        #expect(busy.description(host: "127.0.0.1", port: 8080) == "could not listen on 127.0.0.1:8080: the address is already in use")
        let privileged = try #require(NetworkFailure(listening: POSIXError(.EACCES)))
        #expect(privileged.description(host: "::1", port: 80) == "could not listen on [::1]:80: permission denied (ports below 1024 need privileges)")
        #expect(NetworkFailure(listening: CocoaError(.fileNoSuchFile)) == nil)
    }

    @Test(arguments: [
        (ECONNREFUSED, "connection refused"),
        (ECONNRESET, "the connection was reset by the other end"),
        (EHOSTUNREACH, "the host is unreachable"),
        (ENETUNREACH, "the network is unreachable"),
        (ETIMEDOUT, "the connection timed out"),
        (EADDRINUSE, "the address is already in use"),
        (EACCES, "permission denied"),
    ])
    func errnoValuesInPlainWords(code: Int32, words: String) {
        #expect(NetworkFailure.words(errno: code, listening: false) == words)
    }

    @Test func errorsItDoesNotKnowAreLeftAlone() {
        #expect(NetworkFailure(CocoaError(.fileNoSuchFile)) == nil)
        #expect(NetworkFailure(KingfisherError.responseError(reason: .URLSessionError(error: CocoaError(.fileNoSuchFile)))) == nil)
    }
}
