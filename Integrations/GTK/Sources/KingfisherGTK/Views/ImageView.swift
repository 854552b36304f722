import Foundation
import Kingfisher
import KingfisherGTKShims

/// A view that shows a ``Kingfisher/KFCrossPlatformImage``: the `UIImageView` of GTK.
///
/// ``widget`` is a `GtkOverlay`; put it into a window or container. Underneath it, a `GtkPicture`
/// shows ``image`` as a GDK texture over the image's own pixels (no copy), fitted by
/// ``contentMode``. Over the picture sit a placeholder slot (any widget, filling the view) and an
/// indicator slot (any widget, centred): the built-in spinner or an animated image. ``fade(from:to:duration:curve:completion:)``
/// and ``transition(to:duration:curve:completion:)`` animate on the widget's frame clock.
///
/// An animated image shows its first frame here; ``AnimatedImageView`` plays animations.
/// Main actor only; GTK must have been set up with ``GTKMainLoop/initialize(drain:)``.
@MainActor
public final class ImageView {
    /// The root widget (a `GtkOverlay`); the view holds a reference to it for its lifetime.
    public let widget: GtkWidgetPointer
    /// The picture that shows ``image``.
    let picture: GtkWidgetPointer
    /// The picture that shows the outgoing image during a cross-fade, under ``picture``.
    let outgoingPicture: GtkWidgetPointer
    let spinner: GtkWidgetPointer
    var fadeState: FadeState?
    var imageIndicator: AnimatedImageView?

    /// The loading state of `kf.setImage` for this view (its one stored property for Kingfisher).
    public let kingfisherState = KingfisherTargetState()

    /// Drives fades from this clock instead of the widget's frame clock when set (tests, recordings).
    public var frameClock: ManualFrameClock?

    /// The image shown; `nil` shows nothing. Setting it ends a running fade at its end state.
    public var image: KFCrossPlatformImage? {
        get { shownImage }
        set {
            finishFade(finished: false)
            setImageWithoutFinishingFade(newValue)
        }
    }

    private var shownImage: KFCrossPlatformImage?

    func setImageWithoutFinishingFade(_ image: KFCrossPlatformImage?) {
        shownImage = image
        show(image, in: picture)
    }

    /// How the image fits the view's area; `.scaleToFill` by default, as in UIKit.
    public var contentMode: ContentMode = .scaleToFill {
        didSet {
            gtk_picture_set_content_fit(kf_gtk_picture(picture), contentMode.contentFit)
            gtk_picture_set_content_fit(kf_gtk_picture(outgoingPicture), contentMode.contentFit)
        }
    }

    /// The widget in the placeholder slot, if any.
    public private(set) var placeholderWidget: GtkWidgetPointer?
    /// The widget in the indicator slot, if any.
    public internal(set) var indicatorWidget: GtkWidgetPointer?

    /// A view showing `image`.
    public init(image: KFCrossPlatformImage? = nil) {
        let root = gtk_overlay_new()
        g_object_ref_sink(root)
        widget = kf_gtk_widget(root)
        outgoingPicture = kf_gtk_widget(gtk_picture_new())
        picture = kf_gtk_widget(gtk_picture_new())
        spinner = kf_gtk_widget(gtk_spinner_new())
        g_object_ref_sink(spinner)
        gtk_widget_set_size_request(spinner, 32, 32)
        gtk_widget_set_halign(spinner, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(spinner, GTK_ALIGN_CENTER)

        gtk_widget_set_overflow(widget, GTK_OVERFLOW_HIDDEN)
        for child in [outgoingPicture, picture] {
            gtk_picture_set_can_shrink(kf_gtk_picture(child), 1)
            gtk_picture_set_content_fit(kf_gtk_picture(child), contentMode.contentFit)
        }
        gtk_widget_set_visible(outgoingPicture, 0)
        gtk_overlay_set_child(kf_gtk_overlay(widget), outgoingPicture)
        gtk_overlay_add_overlay(kf_gtk_overlay(widget), picture)
        gtk_overlay_set_measure_overlay(kf_gtk_overlay(widget), picture, 1)
        setImageWithoutFinishingFade(image)
    }

    isolated deinit {
        finishFade(finished: false)
        imageIndicator = nil
        g_object_unref(spinner)
        g_object_unref(widget)
    }

    /// Shows `image`'s first frame in `target`, or clears it.
    func show(_ image: KFCrossPlatformImage?, in target: GtkWidgetPointer) {
        guard let image else {
            gtk_picture_set_paintable(kf_gtk_picture(target), nil)
            return
        }
        guard let texture = image.firstFrame.makeTexture(for: target) else {
            gtk_picture_set_paintable(kf_gtk_picture(target), nil)
            return
        }
        gtk_picture_set_paintable(kf_gtk_picture(target), kf_gdk_paintable(UnsafeMutableRawPointer(texture)))
        g_object_unref(UnsafeMutableRawPointer(texture))
    }

    /// Puts `placeholder` over the image, filling the view, in place of the current placeholder
    /// widget; `nil` removes it. The view holds a reference to it while it is shown.
    public func setPlaceholderWidget(_ placeholder: GtkWidgetPointer?) {
        if let old = placeholderWidget {
            gtk_overlay_remove_overlay(kf_gtk_overlay(widget), old)
            g_object_unref(old)
        }
        placeholderWidget = placeholder
        guard let placeholder else { return }
        g_object_ref(placeholder)
        gtk_widget_set_halign(placeholder, GTK_ALIGN_FILL)
        gtk_widget_set_valign(placeholder, GTK_ALIGN_FILL)
        gtk_overlay_add_overlay(kf_gtk_overlay(widget), placeholder)
        // Keep the indicator on top of the placeholder.
        if let indicatorWidget {
            gtk_widget_insert_before(placeholder, widget, indicatorWidget)
        }
    }
}
