// The public API is written in Foundation's types (`URL`, `Data`, `CGSize`) and, for the hooks
// (request modifiers, redirect handlers, the downloader's delegate), FoundationNetworking's
// `URLRequest`, `URLResponse` and `HTTPURLResponse`, which Linux keeps in a module of their own.
// Both are re-exported, so `import Kingfisher` alone is enough to write code against it, as an
// app on Apple platforms gets Foundation with UIKit.
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

/// The value behind every `kf` property: `image.kf`, `data.kf` and, later, `view.kf`.
///
/// Kingfisher keeps its helpers behind this wrapper so they never collide with a type's own members.
public struct KingfisherWrapper<Base> {
    /// The value the helpers work on.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }
}

extension KingfisherWrapper: Sendable where Base: Sendable {}

/// A reference type that gains a `kf` property.
public protocol KingfisherCompatible: AnyObject {}

/// A value type that gains a `kf` property.
public protocol KingfisherCompatibleValue {}

extension KingfisherCompatible {
    /// The Kingfisher helpers for this object.
    public var kf: KingfisherWrapper<Self> {
        KingfisherWrapper(self)
    }
}

extension KingfisherCompatibleValue {
    /// The Kingfisher helpers for this value.
    public var kf: KingfisherWrapper<Self> {
        KingfisherWrapper(self)
    }
}

extension Data: KingfisherCompatibleValue {}
