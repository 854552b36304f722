import Foundation

/// The image view of Kingfisher's view-layer signatures: on Linux, any image target.
///
/// There is no toolkit in the library, so where Apple platforms name `UIImageView` or
/// `NSImageView` this names every ``KingfisherImageSettable``: a placeholder written as
/// `func add(to imageView: KFCrossPlatformImageView)` conforms to ``Placeholder`` unchanged.
/// It is an existential, not a class: to reach the toolkit's widget, cast it to your view type
/// (`imageView as? ImageView`), and make new views through the toolkit.
public typealias KFCrossPlatformImageView = any KingfisherImageSettable
