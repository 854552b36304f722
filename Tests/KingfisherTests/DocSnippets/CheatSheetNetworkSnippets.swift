import Foundation
import Kingfisher

/// The cheat sheet's downloader, modifier and prefetching snippets. `url` is an image's URL,
/// `imageView` an ``AvatarView``, `token` a bearer token, `pem` a certificate in PEM.
@MainActor struct CheatSheetNetworkSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    nonisolated func print(_ items: Any...) { log.append(items) }

    func requestModifier(imageView: AvatarView, url: URL, token: String) {
        // snippet: cheat-request-modifier
        let modifier = AnyModifier { request in
            var request = request
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return request
        }
        imageView.kf.setImage(with: url, options: [.requestModifier(modifier)])
        // end snippet
    }

    func redirects(imageView: AvatarView, url: URL) {
        // snippet: cheat-redirect-handler
        let sameHostOnly = AnyRedirectHandler { task, response, newRequest, decide in
            decide(newRequest.url?.host == url.host ? newRequest : nil)     // nil stops the redirect
        }
        imageView.kf.setImage(with: url, options: [.redirectHandler(sameHostOnly)])
        // end snippet
    }

    func downloaderSettings(imageView: AvatarView, url: URL, pem: String) throws {
        // snippet: cheat-downloader-settings
        let downloader = ImageDownloader(name: "images", maxConnectionsPerHost: 4)
        downloader.downloadTimeout = 30                       // seconds without a byte (15 by default)
        downloader.maximumResponseSize = 20 * 1024 * 1024     // 100 MB by default
        downloader.trustedHosts = ["images.internal.example"] // self-signed servers, by host
        try downloader.addTrustedRootCertificates(pem: pem)   // or by their root certificate
        imageView.kf.setImage(with: url, options: [.downloader(downloader)])
        // end snippet
    }

    func download(url: URL) async throws {
        // snippet: cheat-download-direct
        let loaded = try await ImageDownloader.default.downloadImage(with: url)   // no cache involved
        print(loaded.image.size, loaded.originalData.count, "bytes")
        // end snippet
    }

    func retry(imageView: AvatarView, url: URL, backupURL: URL) {
        // snippet: cheat-retry
        imageView.kf.setImage(with: url, options: [
            .retryStrategy(DelayRetryStrategy(maxRetryCount: 3, retryInterval: .accumulated(2))),
            .alternativeSources([.network(backupURL)]),
        ])
        // Or wait for the network to come back (watched through rtnetlink), 10 retries at most:
        imageView.kf.setImage(with: url, options: [.retryStrategy(NetworkRetryStrategy())])
        // end snippet
    }

    func imageModifier(imageView: AvatarView, url: URL) {
        // snippet: cheat-image-modifier
        // Runs on every result, after the cache (unlike a processor, what it returns is not cached).
        let modifier = AnyImageModifier { image in
            image.isAnimated ? image : image.kf.image(withRoundRadius: 8, fit: image.size)
        }
        imageView.kf.setImage(with: url, options: [.imageModifier(modifier)])
        // end snippet
    }

    nonisolated func prefetch(urls: [URL]) {
        // snippet: cheat-prefetch
        let prefetcher = ImagePrefetcher(
            urls: urls, options: [.processor(DownsamplingImageProcessor(size: CGSize(width: 64, height: 64)))]
        ) { skipped, failed, completed in
            print("\(completed.count) cached, \(skipped.count) already there, \(failed.count) failed")
        }
        prefetcher.maxConcurrentDownloads = 8
        prefetcher.sourceFinishedBlock = { source, outcome, duration in   // each source as it ends
            if case .failed(let error) = outcome { print("\(source.url?.absoluteString ?? "?"): \(error)") }
        }
        prefetcher.start()
        // end snippet
    }
}
