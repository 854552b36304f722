import Foundation

/// Something an image target shows while its image loads: an image, or a view of the toolkit
/// (a label, a shimmer) that places itself on the target.
///
/// `kf.setImage` calls ``add(to:)`` when it shows the placeholder and ``remove(from:)`` when the
/// loaded image (or `onFailureImage`, or the next placeholder) replaces it. An image is a
/// placeholder out of the box; a view placeholder conforms and adds itself to the target's
/// widget in ``add(to:)``, casting the target to the toolkit type it knows. The parameter is a
/// ``KFCrossPlatformImageView`` (any ``KingfisherImageSettable``), so implementations written
/// with either spelling conform.
public protocol Placeholder {
    /// Shows the placeholder on `imageView`.
    @MainActor func add(to imageView: KFCrossPlatformImageView)
    /// Takes the placeholder off `imageView`.
    @MainActor func remove(from imageView: KFCrossPlatformImageView)
}

extension KFCrossPlatformImage: Placeholder {
    /// Sets this image as the target's image.
    @MainActor public func add(to imageView: KFCrossPlatformImageView) {
        imageView.setImage(self, options: KingfisherParsedOptionsInfo(nil))
    }

    /// Clears the target's image when it is still this placeholder.
    @MainActor public func remove(from imageView: KFCrossPlatformImageView) {
        if imageView.getImage() == self {
            imageView.setImage(nil, options: KingfisherParsedOptionsInfo(nil))
        }
    }
}
