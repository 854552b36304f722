import Foundation

/// Where an image comes from: a network resource or a data provider.
///
/// The manager reads the cache under ``cacheKey`` first, whatever the case, and only fetches
/// when the cache has nothing.
public enum Source: Sendable {
    /// An image to download from `Resource.downloadURL`.
    case network(any Resource)
    /// An image whose bytes a provider supplies (a local file, base64 text, bytes in memory).
    case provider(any ImageDataProvider)

    /// The key the image is cached under (before any processor identifier is appended).
    public var cacheKey: String {
        switch self {
        case .network(let resource): return resource.cacheKey
        case .provider(let provider): return provider.cacheKey
        }
    }

    /// The URL the image is fetched from, if it has one.
    public var url: URL? {
        switch self {
        case .network(let resource): return resource.downloadURL
        case .provider(let provider): return provider.contentURL
        }
    }

    /// The resource, when this is a network source.
    public var asResource: (any Resource)? {
        if case .network(let resource) = self { return resource }
        return nil
    }

    /// The provider, when this is a provider source.
    public var asProvider: (any ImageDataProvider)? {
        if case .provider(let provider) = self { return provider }
        return nil
    }
}

extension Source: CustomStringConvertible {
    /// The URL for a network source, or the provider's type and key.
    public var description: String {
        switch self {
        case .network(let resource): return resource.downloadURL.absoluteString
        case .provider(let provider): return "\(type(of: provider))(\(provider.cacheKey))"
        }
    }
}

extension Source: Hashable {
    /// Two sources are equal when they are the same case with the same cache key and the same URL
    /// (the download URL of a resource, the content URL of a provider).
    public static func == (lhs: Source, rhs: Source) -> Bool {
        switch (lhs, rhs) {
        case let (.network(left), .network(right)):
            return left.cacheKey == right.cacheKey && left.downloadURL == right.downloadURL
        case let (.provider(left), .provider(right)):
            return left.cacheKey == right.cacheKey && left.contentURL == right.contentURL
        default:
            return false
        }
    }

    /// Hashes the case, the cache key and the URL, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .network(let resource):
            hasher.combine(0)
            hasher.combine(resource.cacheKey)
            hasher.combine(resource.downloadURL)
        case .provider(let provider):
            hasher.combine(1)
            hasher.combine(provider.cacheKey)
            hasher.combine(provider.contentURL)
        }
    }
}
