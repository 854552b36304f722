import Foundation

/// Where an image came from when a cache answered.
public enum CacheType: Sendable, Hashable {
    /// Not from a cache: downloaded, provided or processed just now.
    case none
    /// From the memory storage.
    case memory
    /// From the disk storage.
    case disk

    /// True for `.memory` and `.disk`.
    public var cached: Bool { self != .none }
}

/// The outcome of a cache lookup: the image and the level that had it, or nothing.
public enum ImageCacheResult: Sendable {
    /// Found on disk (and now also in memory).
    case disk(KFCrossPlatformImage)
    /// Found in memory.
    case memory(KFCrossPlatformImage)
    /// Not cached, or expired.
    case none

    /// The image, when there is one.
    public var image: KFCrossPlatformImage? {
        switch self {
        case .disk(let image), .memory(let image): return image
        case .none: return nil
        }
    }

    /// The level that answered.
    public var cacheType: CacheType {
        switch self {
        case .disk: return .disk
        case .memory: return .memory
        case .none: return .none
        }
    }
}

/// The outcome of a store: memory always succeeds; the disk write may fail.
public struct CacheStoreResult: Sendable {
    /// Always `.success`: storing in memory cannot fail.
    public let memoryCacheResult: Result<Void, Never>
    /// The disk write, or `.success` when the store was memory-only.
    public let diskCacheResult: Result<Void, KingfisherError>
}
