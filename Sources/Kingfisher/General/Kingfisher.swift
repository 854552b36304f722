import Foundation

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
