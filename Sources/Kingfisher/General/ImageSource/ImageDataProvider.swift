import Foundation
import Synchronization

/// Supplies the bytes of an image that does not come from a plain download.
///
/// Implement either ``data(handler:)`` or the async ``data()``; each has a default that calls
/// the other, so implementing neither recurses forever. The manager calls the async form inside
/// the retrieving task, so an async provider sees Swift task cancellation when the caller
/// cancels; check `Task.isCancelled` (or call `Task.checkCancellation()`) during long work.
public protocol ImageDataProvider: Sendable {
    /// The key the image is cached under; equal keys must mean equal bytes.
    var cacheKey: String { get }

    /// Delivers the bytes, or an error, to `handler` exactly once.
    func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void)

    /// The bytes of the image.
    func data() async throws -> Data

    /// A URL describing where the bytes live, if there is one (used in messages and results).
    var contentURL: URL? { get }
}

extension ImageDataProvider {
    /// No content URL.
    public var contentURL: URL? { nil }

    /// This provider as a ``Source`` (`.provider(self)`).
    public func convertToSource() -> Source {
        .provider(self)
    }

    /// Runs the async ``data()`` in a task and reports its outcome.
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        Task {
            do { handler(.success(try await data())) } catch { handler(.failure(error)) }
        }
    }

    /// Bridges ``data(handler:)`` into async code.
    public func data() async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            data { continuation.resume(with: $0) }
        }
    }
}

/// Reads an image from a local file.
///
/// The cache key is Kingfisher's local form, `kingfisher.local.cacheKey/` followed by the file's
/// path components joined with `/`, from its nearest `.app` or `.appex` folder when it is inside
/// one (so a bundle's resources keep their keys when the bundle moves), else from the root
/// component `/` (`/srv/a.png` is keyed `kingfisher.local.cacheKey///srv/a.png`), and `?query`
/// when the URL has one.
/// Cancellation is checked before the read and between 1 MB pieces of it.
public struct LocalFileImageDataProvider: ImageDataProvider {
    /// The file read.
    public let fileURL: URL
    /// The key the image is cached under; the file's local cache key by default.
    public let cacheKey: String
    /// Where the file is read: `data(handler:)` reads there, and so does the async ``data()``
    /// unless it is `.untouch` (then the calling task reads).
    public let loadingQueue: CallbackQueue

    /// A provider for the file at `fileURL`, cached under `cacheKey` (its local cache key when
    /// `nil`) and read on `loadingQueue` (by default a global queue, never the caller's thread).
    public init(fileURL: URL, cacheKey: String? = nil, loadingQueue: CallbackQueue = .dispatch(.global(qos: .userInitiated))) {
        self.fileURL = fileURL
        self.cacheKey = cacheKey ?? fileURL.localFileCacheKey
        self.loadingQueue = loadingQueue
    }

    /// The file URL.
    public var contentURL: URL? { fileURL }

    /// Reads the file on ``loadingQueue`` and reports the bytes or the system's error.
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        let fileURL = fileURL
        loadingQueue.execute {
            handler(Result { try Self.read(fileURL, isCancelled: { false }) })
        }
    }

    /// The whole file. Throws the system's error when the file cannot be read, and
    /// `CancellationError` when the calling task is cancelled.
    public func data() async throws -> Data {
        try Task.checkCancellation()
        let fileURL = fileURL
        if case .untouch = loadingQueue {
            return try Self.read(fileURL, isCancelled: { Task.isCancelled })
        }
        let cancelled = Atomic<Bool>(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loadingQueue.execute {
                    continuation.resume(with: Result {
                        try Self.read(fileURL, isCancelled: { cancelled.load(ordering: .relaxed) })
                    })
                }
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
    }

    /// The whole file, read on ``loadingQueue`` as ``data()`` reads it (Kingfisher's property form).
    public var data: Data {
        get async throws { try await data() }
    }

    /// Reads `fileURL` whole, asking `isCancelled` between 1 MB pieces; throws the system's error
    /// (a `POSIXError`) or `CancellationError`.
    static func read(_ fileURL: URL, isCancelled: () -> Bool) throws -> Data {
        try DiskIO.readToEnd(atPath: fileURL.path, isCancelled: isCancelled)
    }
}

extension URL {
    /// The prefix of local-file cache keys, as Kingfisher spells it.
    static let localFileCacheKeyPrefix = "kingfisher.local.cacheKey"

    /// The cache key of a local file, as Kingfisher makes it: ``localFileCacheKeyPrefix``, `/`,
    /// then the URL's path components joined with `/`, starting at the nearest `.app` or
    /// `.appex` component when there is one, else at the root component `/` itself (so
    /// `/srv/a.png` gives `kingfisher.local.cacheKey///srv/a.png`); then `?query` when the URL
    /// has one.
    var localFileCacheKey: String {
        var kept: [String] = []
        for component in pathComponents.reversed() {
            kept.append(component)
            if component.hasSuffix(".app") || component.hasSuffix(".appex") { break }
        }
        let key = Self.localFileCacheKeyPrefix + "/" + kept.reversed().joined(separator: "/")
        if let query { return key + "?" + query }
        return key
    }
}

/// Decodes an image from base64 text, such as the payload of a `data:` URL.
public struct Base64ImageDataProvider: ImageDataProvider {
    /// The base64 text.
    public let base64String: String
    /// The key the image is cached under.
    public let cacheKey: String

    /// A provider for `base64String`, cached under `cacheKey`.
    public init(base64String: String, cacheKey: String) {
        self.base64String = base64String
        self.cacheKey = cacheKey
    }

    /// Thrown when the text is not valid base64.
    public struct InvalidBase64: Error, CustomStringConvertible {
        /// The cache key of the provider whose text was invalid.
        public let cacheKey: String
        /// A readable explanation.
        public var description: String { "the text for key \(cacheKey) is not valid base64" }
    }

    /// Decodes the text and reports the bytes (or ``InvalidBase64``) before returning.
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        handler(Result { try decoded() })
    }

    /// The decoded bytes; throws ``InvalidBase64`` when the text is not base64.
    public func data() async throws -> Data {
        try decoded()
    }

    private func decoded() throws -> Data {
        guard let data = Data(base64Encoded: base64String, options: .ignoreUnknownCharacters) else {
            throw InvalidBase64(cacheKey: cacheKey)
        }
        return data
    }
}

/// Supplies bytes already in memory.
public struct RawImageDataProvider: ImageDataProvider {
    /// The bytes.
    public let data: Data
    /// The key the image is cached under.
    public let cacheKey: String

    /// A provider for `data`, cached under `cacheKey`.
    public init(data: Data, cacheKey: String) {
        self.data = data
        self.cacheKey = cacheKey
    }

    /// The stored bytes.
    public func data() async throws -> Data { data }
}
