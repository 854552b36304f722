import Foundation
import Kingfisher
import Synchronization

/// What `kf fetch`, `kf prefetch` and `kf info` share: reading inputs and waiting for the manager.
enum Retrieval {
    /// A one-line failure that prints as its message.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The processor a `--processor` spec names; the default processor without one.
    static func processor(_ spec: String?) throws -> any ImageProcessor {
        guard let spec else { return DefaultImageProcessor.default }
        do {
            return try ProcessorSpec(parsing: spec).processor()
        } catch let error as ProcessorSpecError {
            throw CLIError.usage("bad --processor: \(error.description)")
        }
    }

    /// The source an input names: an http(s) URL downloads, a `file:` URL or a path reads a file.
    static func source(_ input: String) throws -> Source {
        if let url = remoteURL(input) { return .network(url) }
        if input.lowercased().hasPrefix("file:"), let url = URL(string: input), url.isFileURL {
            return url.convertToSource()
        }
        if let scheme = input.split(separator: ":", maxSplits: 1).first, input.contains("://"),
           scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            throw CLIError.usage("\(input): only http, https and file URLs can be fetched")
        }
        return URL(fileURLWithPath: input).convertToSource()
    }

    /// The URL when `input` is an http or https URL.
    static func remoteURL(_ input: String) -> URL? {
        let lowered = input.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return nil }
        return URL(string: input)
    }

    /// `none`, `memory` or `disk`.
    static func name(of cacheType: CacheType) -> String {
        switch cacheType {
        case .none: return "none"
        case .memory: return "memory"
        case .disk: return "disk"
        }
    }

    /// The bytes the disk cache holds for `source` processed by `identifier`, if any.
    static func cachedBytes(of source: Source, identifier: String, in cache: ImageCache) -> Data? {
        let path = cache.cachePath(forKey: source.cacheKey, processorIdentifier: identifier)
        return try? Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// Retrieves every source, at most `concurrency` at once, and waits for all of them.
    ///
    /// The manager calls back on its own threads (`.untouch`), so blocking this one is safe.
    static func retrieveAll(
        _ sources: [Source], manager: KingfisherManager, options: KingfisherOptionsInfo, concurrency: Int
    ) -> [String: Result<RetrieveImageResult, KingfisherError>] {
        let results = ResultBox()
        let slots = DispatchSemaphore(value: max(1, concurrency))
        let group = DispatchGroup()
        for source in sources {
            slots.wait()
            group.enter()
            manager.retrieveImage(with: source, options: options) { result in
                results.set(result, for: source.cacheKey)
                slots.signal()
                group.leave()
            }
        }
        group.wait()
        return results.value
    }

    /// Results gathered from the manager's threads.
    private final class ResultBox: Sendable {
        private let results = Mutex<[String: Result<RetrieveImageResult, KingfisherError>]>([:])

        func set(_ result: Result<RetrieveImageResult, KingfisherError>, for key: String) {
            results.withLock { $0[key] = result }
        }

        var value: [String: Result<RetrieveImageResult, KingfisherError>] {
            results.withLock { $0 }
        }
    }
}
