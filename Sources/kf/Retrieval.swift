import Foundation
import Kingfisher
import KingfisherSynchronization

/// What `kf fetch`, `kf prefetch` and `kf info` share: reading inputs and waiting for the manager.
enum Retrieval {
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

    /// The format of the bytes the disk cache holds for `source` processed by `identifier`, read
    /// from their first bytes; `.unknown` when there is no such entry.
    static func cachedFormat(of source: Source, identifier: String, in cache: ImageCache) -> ImageFormat {
        let path = cache.cachePath(forKey: source.cacheKey, processorIdentifier: identifier)
        guard let file = FileHandle(forReadingAtPath: path) else { return .unknown }
        defer { try? file.close() }
        guard let head = try? file.read(upToCount: 16) else { return .unknown }
        return ImageFormat(data: head)
    }

    /// Where an image came from, for `--verbose`: `memory`, `disk`, `none (network)` or
    /// `none (file)`.
    static func origin(of source: Source, cacheType: CacheType) -> String {
        guard cacheType == .none else { return name(of: cacheType) }
        if case .network = source { return "none (network)" }
        return "none (file)"
    }

    /// How one source ended: retrieved (from memory, disk, the network or the file) or failed.
    typealias Outcome = Result<RetrieveImageResult, KingfisherError>

    /// Retrieves every source, at most `concurrency` at once, and waits for all of them.
    ///
    /// `options` gives each source's options. `onEach` runs once per source, on the manager's
    /// threads (`.untouch`), with its index in `sources` and the time from its start to its end;
    /// blocking this thread is safe.
    static func retrieveAll(
        _ sources: [Source], manager: KingfisherManager, options: (Source) -> KingfisherOptionsInfo, concurrency: Int,
        onEach: @escaping @Sendable (_ index: Int, _ outcome: Outcome, _ elapsed: Duration) -> Void
    ) {
        let slots = DispatchSemaphore(value: max(1, concurrency))
        let group = DispatchGroup()
        for (index, source) in sources.enumerated() {
            slots.wait()
            group.enter()
            let launched = ContinuousClock.now
            manager.retrieveImage(with: source, options: options(source)) { result in
                onEach(index, result, ContinuousClock.now - launched)
                slots.signal()
                group.leave()
            }
        }
        group.wait()
    }
}

/// A value filled from the manager's threads and read once they are done.
final class Locked<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    /// A box holding `value`.
    init(_ value: Value) { state = Mutex(value) }

    /// Changes the value under the lock and returns what `body` returns.
    func update<T: Sendable>(_ body: (inout Value) -> T) -> T { state.withLock { body(&$0) } }

    /// The value now.
    var value: Value { state.withLock { $0 } }
}
