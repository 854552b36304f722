import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// HTTPS against the test server's self-signed certificate: refused by default, accepted through
/// `addTrustedRootCertificates(pem:)` or `trustedHosts`, and HTTP/2 when the server offers it.
@Suite struct ImageDownloaderTLSTests {
    static func run(_ body: @escaping @Sendable (TestHTTPServer, ImageDownloader) async throws -> Void) async throws {
        let server = try await TestHTTPServer.start(tls: true)
        let downloader = ImageDownloader(name: "tls")
        do {
            try await DownloaderKit.bounded(20) { try await body(server, downloader) }
        } catch {
            try? await downloader.shutdown()
            try? await server.shutdown()
            throw error
        }
        try await downloader.shutdown()
        try await server.shutdown()
    }

    @Test func aSelfSignedCertificateIsRefusedByDefault() async throws {
        try await Self.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            #expect(server.url("/a.png").scheme == "https")
            await #expect {
                try await downloader.downloadImage(with: server.url("/a.png"))
            } throws: { error in
                guard case .responseError(reason: .URLSessionError) = error as? KingfisherError else { return false }
                return true
            }
        }
    }

    @Test func trustedRootCertificateAcceptsTheServerOverHTTP2() async throws {
        try await Self.run { server, downloader in
            server.route("/a.png", .ok(DownloaderKit.png))
            try downloader.addTrustedRootCertificates(pem: server.certificatePEM)
            let results = Recorder<DownloadResult>()
            for _ in 0..<3 { _ = downloader.downloadImage(with: server.url("/a.png")) { results.record($0) } }
            #expect(await results.wait(for: 3).allSatisfy { (try? $0.get().image.pixelWidth) == 16 })
            #expect(server.requests(for: "/a.png").first?.httpVersion == "HTTP/2")
        }
    }

    @Test func trustedHostsSkipVerificationForThatHostOnly() async throws {
        try await Self.run { server, downloader in
            server.route("/b.png", .ok(DownloaderKit.png))
            downloader.trustedHosts = ["localhost"]
            let result = try await downloader.downloadImage(with: server.url("/b.png"))
            #expect(result.image.pixelWidth == 16)
            downloader.trustedHosts = ["example.invalid"]
            await #expect(throws: KingfisherError.self) {
                try await downloader.downloadImage(with: server.url("/b.png"), options: [.requestModifier(AnyModifier { request in
                    var request = request
                    request.setValue("fresh", forHTTPHeaderField: "X-Fresh")
                    return request
                })])
            }
        }
    }

    @Test func invalidPEMIsAnError() throws {
        let downloader = ImageDownloader(name: "pem")
        #expect(throws: (any Error).self) { try downloader.addTrustedRootCertificates(pem: "not a certificate") }
    }
}
