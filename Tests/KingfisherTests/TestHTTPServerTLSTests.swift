import Foundation
import Synchronization
import KingfisherTestServer
import Testing

/// HTTPS with a fresh self-signed certificate, HTTP/1.1 and HTTP/2 chosen by ALPN.
@Suite struct TestHTTPServerTLSTests {
    @Test func servesHTTP1AndHTTP2ToAClientTrustingItsCertificate() async throws {
        let server = try await TestHTTPServer.start(tls: true)
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        server.route("/secure", .ok(body, contentType: "image/jpeg"))
        server.route("/chunks", .chunked(body, chunkSize: 7000))
        #expect(server.baseURL.absoluteString == "https://localhost:\(server.port)")
        #expect(server.url("/secure").absoluteString == "https://localhost:\(server.port)/secure")
        #expect(server.certificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        let port = server.port
        let pem = server.certificatePEM
        try await withWatchdog(.seconds(30)) {
            let http1 = try await TLSTestClient.get(port: port, path: "/secure", trustedPEM: pem)
            #expect(http1.status == 200 && http1.body == body && http1.httpVersion == "HTTP/1.1")
            let http2 = try await TLSTestClient.get(port: port, path: "/secure?v=2", trustedPEM: pem, http2: true)
            #expect(http2.status == 200 && http2.body == body && http2.httpVersion == "HTTP/2")
            #expect(http2.headers.first { $0.0 == "content-type" }?.1 == "image/jpeg")
            let chunks = try await TLSTestClient.get(port: port, path: "/chunks", trustedPEM: pem, http2: true)
            // Sending `Transfer-Encoding` on HTTP/2 would be a stream error; the body arriving whole shows it was left out.
            #expect(chunks.status == 200 && chunks.body == body)
            // The certificate also names 127.0.0.1.
            let byAddress = try await TLSTestClient.get(
                port: port, path: "/secure", trustedPEM: pem, serverName: "127.0.0.1")
            #expect(byAddress.body == body)
        }
        #expect(server.requests(for: "/secure").map(\.httpVersion) == ["HTTP/1.1", "HTTP/2", "HTTP/1.1"])
        #expect(server.requests(for: "/secure")[1].uri == "/secure?v=2")
        try await server.shutdown()
    }

    @Test func aClientTrustingAnotherCertificateIsRefused() async throws {
        let server = try await TestHTTPServer.start(tls: true)
        let other = try await TestHTTPServer.start(tls: true)
        server.route("/secure", .ok(Data("secret".utf8)))
        let port = server.port
        let wrongPEM = other.certificatePEM
        #expect(wrongPEM != server.certificatePEM)
        try await withWatchdog(.seconds(30)) {
            await #expect(throws: (any Error).self) {
                _ = try await TLSTestClient.get(port: port, path: "/secure", trustedPEM: wrongPEM)
            }
        }
        #expect(server.requestCount(for: "/secure") == 0)
        try await other.shutdown()
        try await server.shutdown()
    }
}
