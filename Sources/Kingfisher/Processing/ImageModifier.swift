import Foundation

/// Changes an image after it leaves the cache, every time it is retrieved; the result is never cached.
///
/// Kingfisher's UIKit modifiers (rendering mode, alignment insets, right-to-left flipping) describe
/// how a view draws and have no meaning for a bitmap on Linux, so they are not provided.
public protocol ImageModifier: Sendable {
    /// The modified image.
    func modify(_ image: KFCrossPlatformImage) -> KFCrossPlatformImage
}

/// An ``ImageModifier`` made from a closure; when the closure throws, the image is returned unchanged.
public struct AnyImageModifier: ImageModifier {
    private let block: @Sendable (KFCrossPlatformImage) throws -> KFCrossPlatformImage

    /// Wraps `modify`.
    public init(modify: @escaping @Sendable (KFCrossPlatformImage) throws -> KFCrossPlatformImage) {
        block = modify
    }

    /// Runs the block; when it throws, the image is returned unchanged.
    public func modify(_ image: KFCrossPlatformImage) -> KFCrossPlatformImage {
        (try? block(image)) ?? image
    }
}
