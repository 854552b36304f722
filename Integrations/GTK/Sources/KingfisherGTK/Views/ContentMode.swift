import KingfisherGTKShims

/// How an ``ImageView`` fits its image into its area, named as `UIView.ContentMode` names them.
public enum ContentMode: Sendable, Hashable, CaseIterable {
    /// Stretches the image to the whole area, ignoring its aspect ratio (`GTK_CONTENT_FIT_FILL`).
    case scaleToFill
    /// Scales the image to fit inside the area, keeping its aspect ratio (`GTK_CONTENT_FIT_CONTAIN`).
    case aspectFit
    /// Scales the image to cover the area, keeping its aspect ratio and clipping what overflows
    /// (`GTK_CONTENT_FIT_COVER`).
    case aspectFill
    /// Shows the image at its own size, centred (`GTK_CONTENT_FIT_SCALE_DOWN`).
    ///
    /// Differs from UIKit's `.center` only for an image larger than the view: GTK has no fit that
    /// clips without scaling, so the image is scaled down to fit instead of being cropped.
    case center

    /// GTK's content fit for this mode.
    public var contentFit: GtkContentFit {
        switch self {
        case .scaleToFill: GTK_CONTENT_FIT_FILL
        case .aspectFit: GTK_CONTENT_FIT_CONTAIN
        case .aspectFill: GTK_CONTENT_FIT_COVER
        case .center: GTK_CONTENT_FIT_SCALE_DOWN
        }
    }
}
