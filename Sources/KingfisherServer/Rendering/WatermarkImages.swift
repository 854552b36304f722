import Foundation
import Kingfisher
import KingfisherSynchronization

/// The decoded watermark images of one rendition, by ``RenditionWatermark/Image`` description,
/// fetched before the rendition is processed.
final class WatermarkImages: Sendable {
    private let images = Mutex<[String: KFCrossPlatformImage]>([:])

    /// Keeps `image` for `source`.
    func store(_ image: KFCrossPlatformImage, for source: RenditionWatermark.Image) {
        images.withLock { $0[source.description] = image }
    }

    /// The image fetched for `source`, if any.
    func image(for source: RenditionWatermark.Image) -> KFCrossPlatformImage? {
        images.withLock { $0[source.description] }
    }
}
