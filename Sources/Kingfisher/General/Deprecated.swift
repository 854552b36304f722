import Foundation

/// The former name of ``KF/ImageResource``, kept so code written for earlier Kingfisher versions
/// still compiles.
///
/// It resolves to ``KF/ImageResource`` and warns at each use: a bare `ImageResource` clashes with
/// types of the same name in other modules, so new code writes `KF.ImageResource`.
@available(*, deprecated, renamed: "KF.ImageResource", message: "Write KF.ImageResource; a bare ImageResource clashes with other modules' types of that name.")
public typealias ImageResource = KF.ImageResource
