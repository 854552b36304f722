import Foundation

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
/// Cancellation is checked before the read and between 1 MB pieces of it.
public struct LocalFileImageDataProvider: ImageDataProvider {
    /// The file read.
    public let fileURL: URL
    /// The key the image is cached under; the file URL's absolute string by default.
    public let cacheKey: String

    /// A provider for the file at `fileURL`.
    public init(fileURL: URL, cacheKey: String? = nil) {
        self.fileURL = fileURL
        self.cacheKey = cacheKey ?? fileURL.absoluteString
    }

    /// The file URL.
    public var contentURL: URL? { fileURL }

    /// The whole file. Throws the system's error when the file cannot be read, and
    /// `CancellationError` when the calling task is cancelled.
    public func data() async throws -> Data {
        try Task.checkCancellation()
        let handle = try FileHandle(forReadingFrom: fileURL)
        defer { try? handle.close() }
        var result = Data()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            try Task.checkCancellation()
            result.append(piece)
        }
        return result
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

    /// The decoded bytes; throws ``InvalidBase64`` when the text is not base64.
    public func data() async throws -> Data {
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
