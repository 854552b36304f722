import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// Network faults from the loopback server (issue 19, part 4): each ends in a clear error, the
/// downloader stays usable, and memory stays bounded. Already covered elsewhere, so not repeated
/// here: a body shorter than its `Content-Length` and a close mid-body
/// (`ImageDownloaderResponseTests.aTruncatedBodyIsAnErrorNotAnImage`), a finite chunked body over
/// the cap (`sizeCapWhileStreaming`), a stalled body (`aStalledBodyIsATimeout`) and a redirect
/// loop (`ImageDownloaderHookTests.redirectLoopsStopAtTheLimit`).
@Suite struct ImageDownloaderFaultTests {
    @Test func aConnectionResetMidBodyIsAnErrorAndTheNextDownloadWorks() async throws {
        try await DownloaderKit.run { server, downloader in
            let body = DownloaderKit.bigPNG
            server.route("/reset.png", .resetMidBody(body, after: 20_000))
            server.route("/fine.png", .ok(body, contentType: "image/png"))
            await #expect {
                try await downloader.downloadImage(with: server.url("/reset.png"))
            } throws: { error in
                switch error as? KingfisherError {
                case .responseError(reason: .URLSessionError), .responseError(reason: .responseIncomplete): true
                default: false
                }
            }
            let fine = try await downloader.downloadImage(with: server.url("/fine.png"))
            #expect(fine.originalData == body)
            FaultFigures.report("reset-mid-body", ["sent_before_reset": "20000"])
        }
    }

    @Test func aBodyLongerThanItsContentLengthIsCutThereAndPoisonsNoLaterResponse() async throws {
        // One connection, so the next request goes where the stray bytes were.
        try await DownloaderKit.run(maxConnectionsPerHost: 1) { server, downloader in
            let smuggled = Data("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
            server.route("/over.png", .overlongBody(DownloaderKit.png, trailing: smuggled))
            server.route("/next.png", .ok(DownloaderKit.bigPNG, contentType: "image/png"))
            let first = try await downloader.downloadImage(with: server.url("/over.png"))
            #expect(first.originalData == DownloaderKit.png)
            for _ in 0..<3 {
                let next = try await downloader.downloadImage(with: server.url("/next.png"))
                #expect(next.originalData == DownloaderKit.bigPNG)
            }
            #expect(server.requestCount(for: "/next.png") == 3)
            FaultFigures.report("overlong-body", ["trailing_bytes": "\(smuggled.count)"])
        }
    }

    @Test func aNeverEndingChunkedBodyStopsAtTheSizeCap() async throws {
        try await DownloaderKit.run { server, downloader in
            let cap: Int64 = 16 << 20
            downloader.maximumResponseSize = cap
            server.route("/endless.png", .endlessChunked(DownloaderKit.bigPNG, chunkSize: 64 * 1024))
            let before = FaultFigures.residentBytes
            let seconds = await secondsTaken {
                await #expect {
                    try await downloader.downloadImage(with: server.url("/endless.png"))
                } throws: { error in
                    guard case .responseError(reason: .responseTooLarge(_, let limit, nil, let received)) = error as? KingfisherError
                    else { return false }
                    return limit == cap && received > cap && received <= cap + 64 * 1024
                }
            }
            let grown = FaultFigures.residentBytes - before
            // The buffer stops at the cap. Loose, since other suites may run alongside; without the
            // cap the endless body would reach gigabytes before the test's watchdog.
            #expect(runsUnderSanitizer || grown < 512 << 20)
            server.route("/fine.png", .ok(DownloaderKit.png, contentType: "image/png"))
            let fine = try await downloader.downloadImage(with: server.url("/fine.png"))
            #expect(fine.originalData == DownloaderKit.png)
            FaultFigures.report("endless-chunked", [
                "cap_mb": "16", "rss_growth_mb": FaultFigures.megabytes(grown), "seconds": String(format: "%.2f", seconds),
            ])
        }
    }

    @Test func aSlowLorisOriginTimesOut() async throws {
        try await DownloaderKit.run(seconds: 30) { server, downloader in
            downloader.downloadTimeout = 0.5
            // 8 bytes every 20 ms: a byte well inside every timeout, but 400 bytes a second; the
            // whole megabyte would take 45 minutes.
            server.route("/loris.png", .slow(Data(count: 1 << 20), chunkSize: 8, interval: 0.02))
            let seconds = await secondsTaken {
                await #expect {
                    try await downloader.downloadImage(with: server.url("/loris.png"))
                } throws: { error in
                    guard case .responseError(reason: .downloadTimedOut(_, let timeout)) = error as? KingfisherError
                    else { return false }
                    return timeout == 0.5
                }
            }
            // The idle timeout plus the sweeper's check interval (0.6 s alone), with room for a
            // machine busy with other suites; before progress needed 1 KiB it never timed out.
            #expect(seconds < 15)
            FaultFigures.report("slow-loris", ["timeout_s": "0.5", "failed_after_s": String(format: "%.2f", seconds)])
        }
    }

    @Test func aGzipBombIsNeverInflated() async throws {
        #expect(GzipBomb.crc32OfZeros(4099) == GzipBomb.crc32(Data(count: 4099)))
        for copies in [0, 1, 7, 8, 9, 40, 45] {
            #expect(GzipBomb.make(copies: copies).gzip == GzipBomb.makeBitByBit(copies: copies), "\(copies) copies")
        }
        let bomb = GzipBomb.make(copies: 1_040_000) // 256 MiB of zeros in about 1.6 MB
        try await DownloaderKit.run { server, downloader in
            server.route("/bomb.png", .ok(bomb.gzip, contentType: "image/png").withHeaders([("Content-Encoding", "gzip")]))
            let before = FaultFigures.residentBytes
            await #expect {
                try await downloader.downloadImage(with: server.url("/bomb.png"))
            } throws: { error in
                // The bytes on the wire are not an image; nothing inflated them into one.
                guard case .processorError(reason: .unknownImageFormat(let header)) = error as? KingfisherError
                else { return false }
                return header.count >= 2 && header == bomb.gzip.prefix(header.count)
            }
            let grown = FaultFigures.residentBytes - before
            // Loose (other suites may run alongside); inflating would take 256 MiB.
            #expect(runsUnderSanitizer || grown < 200 << 20)
            // The downloader never asks for a compressed body.
            #expect(server.requests(for: "/bomb.png").first?.header("accept-encoding") == nil)
            FaultFigures.report("gzip-bomb", [
                "wire_bytes": "\(bomb.gzip.count)", "decoded_bytes": "\(bomb.decodedSize)",
                "rss_growth_mb": FaultFigures.megabytes(grown),
            ])
        }
    }
}
