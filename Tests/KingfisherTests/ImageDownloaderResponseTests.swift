import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Body framing, the size cap, timeouts and truncated bodies.
@Suite struct ImageDownloaderResponseTests {
    @Test func bodiesWithoutContentLengthStillArrive() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/chunked.png", .chunked(DownloaderKit.bigPNG, chunkSize: 7000))
            server.route("/close.png", .noContentLength(DownloaderKit.png))
            let progress = Recorder<Int64>()
            let chunked = try await downloader.downloadImage(
                with: server.url("/chunked.png"), progressBlock: { _, total in progress.record(total) })
            #expect(chunked.originalData == DownloaderKit.bigPNG)
            #expect(progress.values.allSatisfy { $0 == -1 })
            #expect(try await downloader.downloadImage(with: server.url("/close.png")).originalData == DownloaderKit.png)
        }
    }

    @Test func sizeCapByContentLengthReadsNothing() async throws {
        try await DownloaderKit.run { server, downloader in
            downloader.maximumResponseSize = 10_000
            let body = DownloaderKit.bigPNG
            server.route("/huge.png", .ok(body))
            let progress = Recorder<Int64>()
            await #expect {
                try await downloader.downloadImage(with: server.url("/huge.png"), progressBlock: { received, _ in progress.record(received) })
            } throws: { error in
                guard let error = error as? KingfisherError,
                      case .responseError(reason: .responseTooLarge(let url, let limit, let declared, let received)) = error
                else { return false }
                return url == server.url("/huge.png") && limit == 10_000 && declared == Int64(body.count) && received == 0
                    && error.errorCode == 2101 && error.localizedDescription.contains(url.absoluteString)
            }
            #expect(progress.values.isEmpty)
            // A lie in the header is caught too: 200 MB declared, refused before reading.
            server.route("/liar.png", .wrongContentLength(DownloaderKit.png, declared: 200 * 1024 * 1024))
            downloader.maximumResponseSize = 100 * 1024 * 1024
            await #expect { try await downloader.downloadImage(with: server.url("/liar.png")) } throws: {
                guard case .responseError(reason: .responseTooLarge(_, _, let declared?, _)) = $0 as? KingfisherError else { return false }
                return declared == 200 * 1024 * 1024
            }
        }
    }

    @Test func sizeCapWhileStreaming() async throws {
        try await DownloaderKit.run { server, downloader in
            downloader.maximumResponseSize = 20_000
            server.route("/stream.png", .chunked(DownloaderKit.bigPNG, chunkSize: 4096))
            await #expect {
                try await downloader.downloadImage(with: server.url("/stream.png"))
            } throws: { error in
                guard case .responseError(reason: .responseTooLarge(_, let limit, let declared, let received)) = error as? KingfisherError
                else { return false }
                return limit == 20_000 && declared == nil && received > 20_000 && received <= 20_000 + 8192
            }
            // The downloader is still usable afterwards.
            downloader.maximumResponseSize = 1_000_000
            let again = try await downloader.downloadImage(with: server.url("/stream.png"))
            #expect(again.originalData == DownloaderKit.bigPNG)
        }
    }

    @Test func noHeadersInTimeIsATimeoutNamingTheURL() async throws {
        try await DownloaderKit.run { server, downloader in
            downloader.downloadTimeout = 0.3
            server.route("/never", .never())
            await #expect {
                try await downloader.downloadImage(with: server.url("/never"))
            } throws: { error in
                guard let error = error as? KingfisherError,
                      case .responseError(reason: .downloadTimedOut(let url, let timeout)) = error else { return false }
                return url == server.url("/never") && timeout == 0.3 && error.errorCode == 2102
                    && error.localizedDescription.contains(url.absoluteString)
            }
        }
    }

    @Test func aStalledBodyIsATimeout() async throws {
        try await DownloaderKit.run { server, downloader in
            downloader.downloadTimeout = 0.3
            let gate = TestGate()
            server.route("/stalled.png", .heldBody(DownloaderKit.png, gate: gate))
            await #expect { try await downloader.downloadImage(with: server.url("/stalled.png")) } throws: {
                ($0 as? KingfisherError)?.errorCode == 2102
            }
            gate.open()
        }
    }

    @Test func aTruncatedBodyIsAnErrorNotAnImage() async throws {
        try await DownloaderKit.run { server, downloader in
            let body = DownloaderKit.bigPNG
            server.route("/cut.png", .closeMidBody(body, after: 5000))
            server.route("/short.png", .wrongContentLength(body, declared: body.count + 1000))
            for path in ["/cut.png", "/short.png"] {
                await #expect {
                    try await downloader.downloadImage(with: server.url(path))
                } throws: { error in
                    guard let error = error as? KingfisherError else { return false }
                    switch error {
                    case .responseError(reason: .responseIncomplete), .responseError(reason: .URLSessionError): return true
                    default: return false
                    }
                }
            }
        }
    }

    @Test func aRefusedConnectionFailsAtOnceAsATransferError() async throws {
        // Bound and never listening, so no other test's server can take the port meanwhile.
        let closed = try RefusingPort()
        defer { closed.close() }
        let url = closed.url("/gone.png")
        let downloader = ImageDownloader(name: "refused")
        // Below the 10 s connect timeout: the failure is reported, not retried until then. (A
        // refusal takes milliseconds; the margin is for a machine the whole suite keeps busy,
        // where 5 s was once not enough.)
        try await DownloaderKit.bounded(8) {
            await #expect {
                try await downloader.downloadImage(with: url)
            } throws: { error in
                guard case .responseError(reason: .URLSessionError) = error as? KingfisherError else { return false }
                return true
            }
        }
        try await downloader.shutdown()
    }
}
