import Foundation
import Kingfisher

/// docs/Architecture.md's walk through the pipeline: the stages `KingfisherManager` runs for one
/// call, done by hand with the public parts. `url` is an http(s) image URL.
struct ArchitectureSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    func print(_ items: Any...) { log.append(items) }

    func byHand(url: URL) async throws {
        // snippet: architecture-by-hand
        let cache = ImageCache.default                               // memory, then disk
        let processor = DownsamplingImageProcessor(size: CGSize(width: 200, height: 200))
        let options = KingfisherParsedOptionsInfo([.processor(processor)])
        let key = url.cacheKey                                       // stored as key@processor.identifier

        if let cached = try await cache.retrieveImage(forKey: key, options: options).image {
            return print("cached:", cached.size)
        }
        // One download per URL however many callers; the bytes are processed once per processor.
        let loaded = try await ImageDownloader.default.downloadImage(with: url, options: options)
        try await cache.store(loaded.image, original: loaded.originalData, forKey: key, options: options)
        print("downloaded, processed and stored:", loaded.image.size)
        // end snippet
    }
}
