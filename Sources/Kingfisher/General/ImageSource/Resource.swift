import Foundation

/// A downloadable image: the URL to fetch it from and the key to cache it under.
///
/// `URL` is a resource keyed by its absolute string. Use ``KF/ImageResource`` to cache an image
/// under a key of your own, such as one without the query string of a signed URL.
public protocol Resource: Sendable {
    /// The key the image is cached under.
    var cacheKey: String { get }
    /// The URL the image is downloaded from.
    var downloadURL: URL { get }
}

extension Resource {
    /// The source for this resource: a file URL becomes a ``LocalFileImageDataProvider`` (read
    /// from disk, never downloaded), anything else a network source.
    ///
    /// - Parameter overrideCacheKey: A key to use instead of ``cacheKey``.
    public func convertToSource(overrideCacheKey: String? = nil) -> Source {
        let key = overrideCacheKey ?? cacheKey
        if downloadURL.isFileURL {
            return .provider(LocalFileImageDataProvider(fileURL: downloadURL, cacheKey: key))
        }
        if let overrideCacheKey {
            return .network(KF.ImageResource(downloadURL: downloadURL, cacheKey: overrideCacheKey))
        }
        return .network(self)
    }
}

extension URL: Resource {
    /// The absolute string of the URL; for a file URL, its local cache key
    /// (`kingfisher.local.cacheKey/path`, as ``LocalFileImageDataProvider`` keys it).
    public var cacheKey: String { isFileURL ? localFileCacheKey : absoluteString }
    /// The URL itself.
    public var downloadURL: URL { self }
}

/// Kingfisher's namespace for types whose short names would clash with other modules.
public enum KF {
    /// A resource with an explicit cache key.
    public struct ImageResource: Resource, Hashable {
        /// The key the image is cached under.
        public let cacheKey: String
        /// The URL the image is downloaded from.
        public let downloadURL: URL

        /// A resource for `downloadURL`, cached under `cacheKey` or, when that is `nil`, under
        /// the URL's own cache key.
        public init(downloadURL: URL, cacheKey: String? = nil) {
            self.downloadURL = downloadURL
            self.cacheKey = cacheKey ?? downloadURL.cacheKey
        }
    }
}
