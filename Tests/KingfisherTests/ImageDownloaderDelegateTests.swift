import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import KingfisherTestServer
import Synchronization
import Testing
@testable import Kingfisher

/// The downloader delegate: each hook once per transfer, status validation, response and data decisions.
@Suite struct ImageDownloaderDelegateTests {
    final class RecordingDelegate: ImageDownloaderDelegate {
        let events = Recorder<String>()
        let finished = Recorder<String>()
        let validCodes: Range<Int>
        let disposition: URLSession.ResponseDisposition
        let dataHook: @Sendable (Data) -> Data?

        init(validCodes: Range<Int> = 200..<400, disposition: URLSession.ResponseDisposition = .allow,
             dataHook: @escaping @Sendable (Data) -> Data? = { $0 }) {
            self.validCodes = validCodes
            self.disposition = disposition
            self.dataHook = dataHook
        }

        func imageDownloader(_ downloader: ImageDownloader, willDownloadImageForURL url: URL, with request: URLRequest?) {
            events.record("will \(url.path)")
        }
        func imageDownloader(_ downloader: ImageDownloader, didFinishDownloadingImageForURL url: URL,
                             with response: URLResponse?, error: (any Error)?) {
            let code = (response as? HTTPURLResponse)?.statusCode ?? 0
            let kfError = error as? KingfisherError
            let outcome = kfError.map { "error \($0.errorCode)" } ?? "ok \(code)"
            events.record("finish \(url.path) \(outcome)")
            finished.record(outcome)
        }
        func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, with dataTask: SessionDataTask) -> Data? {
            events.record("data \(dataTask.originalURL.path)")
            return dataHook(data)
        }
        func imageDownloader(_ downloader: ImageDownloader, didDownload image: KFCrossPlatformImage, for url: URL,
                             with response: URLResponse?) {
            events.record("image \(url.path)")
        }
        func isValidStatusCode(_ code: Int, for downloader: ImageDownloader) -> Bool {
            validCodes.contains(code)
        }
        func imageDownloader(_ downloader: ImageDownloader, didReceive response: URLResponse) async -> URLSession.ResponseDisposition {
            events.record("response \(response.url?.path ?? "")")
            return disposition
        }
    }

    @Test func everyHookRunsOncePerTransferWhateverTheCallers() async throws {
        try await DownloaderKit.run { server, downloader in
            let delegate = RecordingDelegate()
            downloader.delegate = delegate
            let gate = TestGate()
            server.route("/d.png", .held(DownloaderKit.png, gate: gate))
            let results = Recorder<DownloadResult>()
            for _ in 0..<5 { _ = downloader.downloadImage(with: server.url("/d.png")) { results.record($0) } }
            await gate.waitUntilWaiting(count: 1)
            gate.open()
            #expect(await results.wait(for: 5).allSatisfy { (try? $0.get()) != nil })
            #expect(delegate.events.values == ["will /d.png", "response /d.png", "data /d.png", "finish /d.png ok 200", "image /d.png"])
        }
    }

    @Test func didFinishRunsOnceOnFailureAndOnCancellation() async throws {
        try await DownloaderKit.run { server, downloader in
            let delegate = RecordingDelegate()
            downloader.delegate = delegate
            server.route("/missing.png", .status(404))
            let results = Recorder<DownloadResult>()
            for _ in 0..<3 { _ = downloader.downloadImage(with: server.url("/missing.png")) { results.record($0) } }
            #expect(await results.wait(for: 3).allSatisfy { $0.error?.errorCode == 2002 })
            #expect(await delegate.finished.wait(for: 1) == ["error 2002"])

            let gate = TestGate()
            server.route("/held.png", .held(DownloaderKit.png, gate: gate))
            let task = try #require(downloader.downloadImage(with: server.url("/held.png")) { _ in })
            await gate.waitUntilWaiting(count: 1)
            task.cancel()
            #expect(await delegate.finished.wait(for: 2) == ["error 2002", "error 1003"])
            #expect(delegate.events.values.filter { $0.hasPrefix("finish") }.count == 2)
        }
    }

    @Test func statusCodesAreValidatedByTheDelegate() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/gone", .status(410))
            await #expect {
                try await downloader.downloadImage(with: server.url("/gone"))
            } throws: { error in
                guard let error = error as? KingfisherError,
                      case .responseError(reason: .invalidHTTPStatusCode(let response)) = error else { return false }
                return response.statusCode == 410 && error.isInvalidResponseStatusCode
                    && error.localizedDescription.contains(server.url("/gone").absoluteString)
            }
            let delegate = RecordingDelegate(validCodes: 200..<500)
            downloader.delegate = delegate
            server.route("/teapot.png", .status(418, body: DownloaderKit.png))
            let teapot = try await downloader.downloadImage(with: server.url("/teapot.png"))
            #expect(teapot.image.pixelWidth == 16)
            let strict = RecordingDelegate(validCodes: 201..<202)
            downloader.delegate = strict
            server.route("/ok.png", .ok(DownloaderKit.png))
            await #expect { try await downloader.downloadImage(with: server.url("/ok.png")) } throws: {
                ($0 as? KingfisherError)?.errorCode == 2002
            }
        }
    }

    @Test func delegateCanCancelOnTheResponse() async throws {
        try await DownloaderKit.run { server, downloader in
            let delegate = RecordingDelegate(disposition: .cancel)
            downloader.delegate = delegate
            server.route("/c.png", .ok(DownloaderKit.png))
            await #expect { try await downloader.downloadImage(with: server.url("/c.png")) } throws: {
                ($0 as? KingfisherError)?.errorCode == 2006
            }
            #expect(!delegate.events.values.contains("data /c.png"))
        }
    }

    @Test func delegateCanReplaceOrRejectTheData() async throws {
        try await DownloaderKit.run { server, downloader in
            server.route("/garbage", .ok(Data("encrypted".utf8)))
            let replacing = RecordingDelegate(dataHook: { _ in DownloaderKit.png })
            downloader.delegate = replacing
            let result = try await downloader.downloadImage(with: server.url("/garbage"))
            #expect(result.image.pixelWidth == 16 && result.originalData == DownloaderKit.png)

            let rejecting = RecordingDelegate(dataHook: { _ in nil })
            downloader.delegate = rejecting
            await #expect { try await downloader.downloadImage(with: server.url("/garbage")) } throws: {
                ($0 as? KingfisherError)?.errorCode == 2004
            }
            // The finish report comes after the data decision, once, with the refusal's error.
            #expect(await rejecting.finished.wait(for: 1) == ["error 2004"])
            #expect(rejecting.events.values == ["will /garbage", "response /garbage", "data /garbage", "finish /garbage error 2004"])
        }
    }

    /// A delegate that implements only the URL form of the data hook.
    final class URLFormDelegate: ImageDownloaderDelegate {
        let urls = Recorder<String>()
        func imageDownloader(_ downloader: ImageDownloader, didDownload data: Data, for url: URL) -> Data? {
            urls.record(url.path)
            return data.count > 10 ? data : nil
        }
    }

    @Test func theURLFormOfTheDataHookDecidesWhenTheTaskFormIsNotImplemented() async throws {
        try await DownloaderKit.run { server, downloader in
            let delegate = URLFormDelegate()
            downloader.delegate = delegate
            server.route("/big.png", .ok(DownloaderKit.png))
            server.route("/tiny", .ok(Data("tiny".utf8)))
            let result = try await downloader.downloadImage(with: server.url("/big.png"))
            #expect(result.image.pixelWidth == 16)
            await #expect { try await downloader.downloadImage(with: server.url("/tiny")) } throws: {
                ($0 as? KingfisherError)?.errorCode == 2004
            }
            #expect(delegate.urls.values == ["/big.png", "/tiny"])
        }
    }

    @Test func theDelegateIsHeldWeakly() throws {
        let downloader = ImageDownloader(name: "weak")
        do {
            let delegate = RecordingDelegate()
            downloader.delegate = delegate
            #expect(downloader.delegate != nil)
        }
        #expect(downloader.delegate == nil)
    }
}
