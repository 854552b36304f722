import Foundation
import KingfisherTestServer
import Testing
@testable import Kingfisher

/// 10,000 downloads of distinct URLs from a server that accepts every connection and never
/// answers (issue 19, part 4): the downloader keeps its connections to the per-host limit, so file
/// descriptors and memory stay bounded, and every caller is answered: those whose transfer ran
/// with the timeout error, the rest with the cancellation error once they are cancelled.
@Suite struct ImageDownloaderSilentServerTests {
    static let callers = 10_000

    /// Opt-in: answering 10,000 callers keeps both cores busy for about 5 s in a debug build, which
    /// starves the tight watchdogs of suites running alongside (a 5-second bound in
    /// `ImageDownloaderResponseTests` failed that way). `scripts/faults.sh` runs it on its own.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["KF_FAULTS_10K"] == "1",
                   "opt-in (KF_FAULTS_10K=1, as scripts/faults.sh sets): too heavy to share the machine with other suites"))
    func tenThousandCallersOfASilentServerAreAllAnsweredWithBoundedDescriptors() async throws {
        let descriptorsBefore = FaultFigures.openDescriptors
        try await DownloaderKit.run(seconds: 120) { server, downloader in
            downloader.downloadTimeout = 1
            server.route("/silent.png", .never())
            let residentBefore = FaultFigures.residentBytes
            let results = Recorder<DownloadResult>()
            var peakDescriptors = descriptorsBefore
            let started = await secondsTaken {
                for index in 0..<Self.callers {
                    _ = downloader.downloadImage(with: server.url("/silent.png?n=\(index)")) { results.record($0) }
                }
            }
            #expect(downloader.sessionTaskCount == Self.callers)
            // The first transfers reach the server and hang there; the rest wait for a slot.
            let limit = downloader.maxConnectionsPerHost
            await server.waitUntilRequestCount(for: "/silent.png", reaches: limit)
            peakDescriptors = max(peakDescriptors, FaultFigures.openDescriptors)
            // They time out, and the next ones take their slots.
            let timedOutFirst = await results.wait(for: limit).prefix(limit)
            #expect(timedOutFirst.allSatisfy { $0.error.map(Self.isTimeout) == true })
            await server.waitUntilRequestCount(for: "/silent.png", reaches: 2 * limit)
            peakDescriptors = max(peakDescriptors, FaultFigures.openDescriptors)
            let residentLoaded = FaultFigures.residentBytes

            let cancelled = await secondsTaken {
                downloader.cancelAll()
                _ = await results.wait(for: Self.callers)
            }
            let all = results.values
            let timeouts = all.filter { $0.error.map(Self.isTimeout) == true }.count
            let cancellations = all.filter { $0.error?.isTaskCancelled == true }.count
            #expect(all.count == Self.callers)
            #expect(timeouts >= limit && timeouts + cancellations == Self.callers)
            #expect(downloader.sessionTaskCount == 0)
            // Server and client ends of the per-host connections, and some slack for other suites
            // running at the same time; 10,000 connections would need 20,000.
            #expect(peakDescriptors - descriptorsBefore <= 2 * limit + 200)
            #expect(runsUnderSanitizer || residentLoaded - residentBefore < 256 << 20)
            FaultFigures.report("silent-server-10000", [
                "callers": "\(Self.callers)", "timed_out": "\(timeouts)", "cancelled": "\(cancellations)",
                "fds_before": "\(descriptorsBefore)", "fds_peak": "\(peakDescriptors)",
                "rss_growth_mb": FaultFigures.megabytes(residentLoaded - residentBefore),
                "start_s": String(format: "%.2f", started), "cancel_all_s": String(format: "%.2f", cancelled),
            ])
        }
        // Both ends of every connection are closed once the downloader and the server are shut down.
        let descriptorsAfter = FaultFigures.openDescriptors
        #expect(descriptorsAfter - descriptorsBefore <= 200)
        FaultFigures.report("silent-server-10000-after", ["fds_before": "\(descriptorsBefore)", "fds_after": "\(descriptorsAfter)"])
    }

    static func isTimeout(_ error: KingfisherError) -> Bool {
        if case .responseError(reason: .downloadTimedOut) = error { return true }
        return false
    }
}
