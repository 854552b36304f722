import Foundation
import Kingfisher
import KingfisherGTKShims

/// `ImageView` is a Kingfisher image target: `imageView.kf.setImage(with: url, placeholder: …,
/// options: [.transition(.fade(0.3))])`, `imageView.kf.indicatorType = .activity`,
/// `imageView.kf.cancelDownloadTask()` work as on Apple platforms.
///
/// - Indicators: `.activity` is the built-in `GtkSpinner`; `.image(imageData:)` plays the image
///   (a GIF, say) in the indicator slot at its own size; a `.custom` indicator whose
///   ``Kingfisher/Indicator/view`` is a ``GTKWidgetBox`` has its widget placed in the slot, shown
///   while the indicator is on the view.
/// - Transitions run on the widget's frame clock (or ``ImageView/frameClock``): `.fade` cross-fades
///   from what is shown (the placeholder image, or the previous image) to the new image. GTK 4.8
///   has no 3D transforms for widgets, so the flips are drawn as the same cross-fade; `.custom`
///   transitions run their `animations` block at the start and finish after their duration.
extension ImageView: KingfisherHasImageComponent {
    /// Places `indicator` in the indicator slot; see the extension's discussion.
    public func addIndicator(_ indicator: any Indicator) {
        switch indicator {
        case let activity as ActivityIndicator:
            setIndicatorWidget(spinner)
            activity.onAnimatingChanged = { [weak self] animating in
                if animating { self?.startSpinner() } else { self?.stopSpinner() }
            }
            if activity.isAnimating { startSpinner() }
        case let imageIndicator as ImageIndicator:
            let image = imageIndicator.image
            imageIndicator.onAnimatingChanged = { [weak self] animating in
                if animating { self?.startImageIndicator(image) } else { self?.stopImageIndicator() }
            }
            if imageIndicator.isAnimating { startImageIndicator(image) }
        default:
            guard let box = indicator.view as? GTKWidgetBox else { return }
            setIndicatorWidget(box.widget)
            isIndicatorVisible = true
        }
    }

    /// Takes `indicator` out of the indicator slot.
    public func removeIndicator(_ indicator: any Indicator) {
        switch indicator {
        case let activity as ActivityIndicator:
            activity.onAnimatingChanged = nil
            stopSpinner()
        case let imageIndicator as ImageIndicator:
            imageIndicator.onAnimatingChanged = nil
            stopImageIndicator()
        default:
            break
        }
        setIndicatorWidget(nil)
    }

    /// Plays `timeline` on the frame clock: a cross-fade from what is shown to the new image.
    public func runTransition(_ timeline: ImageTransitionTimeline) {
        finishFade(finished: false)
        // What is shown now fades out underneath; take it before the timeline shows the new image.
        let outgoing = gtk_picture_get_paintable(kf_gtk_picture(picture)).map { UnsafeMutableRawPointer($0) }
        if let outgoing { g_object_ref(outgoing) }
        timeline.start(at: 0)
        guard !timeline.isFinished, frameClock != nil || gtk_widget_get_mapped(widget) != 0 else {
            if let outgoing { g_object_unref(outgoing) }
            timeline.update(at: timeline.duration)
            return
        }
        let animatesOpacity = timeline.effect != .custom
        if animatesOpacity {
            gtk_picture_set_paintable(kf_gtk_picture(outgoingPicture), outgoing.map { kf_gdk_paintable($0) })
            gtk_widget_set_visible(outgoingPicture, 1)
            gtk_widget_set_opacity(picture, 0)
        }
        if let outgoing { g_object_unref(outgoing) }
        let picture = self.picture
        let outgoingPicture = self.outgoingPicture
        var start: Int64?
        let ticker = FrameTicker(widget: widget, clock: frameClock) { [weak self] time in
            let begin = start ?? time
            start = begin
            let eased = timeline.update(at: Double(time - begin) / 1_000_000)
            if animatesOpacity { gtk_widget_set_opacity(picture, eased) }
            self?.fadeState?.progress = timeline.progress
            if timeline.isFinished {
                self?.finishFade(finished: true)
                return false
            }
            return true
        }
        fadeState = FadeState(ticker: ticker, finish: { _ in
            gtk_widget_set_opacity(picture, 1)
            gtk_widget_set_visible(outgoingPicture, 0)
            gtk_picture_set_paintable(kf_gtk_picture(outgoingPicture), nil)
            // A fade cut short (a new image, a new request) leaves the new image shown.
            timeline.cancel()
        }, progress: 0)
    }
}

/// A GTK widget held by reference, for APIs that take an object: the ``Kingfisher/Indicator/view``
/// of a custom indicator, or a ``WidgetPlaceholder``. Holds a strong GObject reference to the widget.
@MainActor
public final class GTKWidgetBox {
    /// The widget.
    public let widget: GtkWidgetPointer

    /// Holds `widget` (taking a reference, sinking a floating one).
    public init(_ widget: GtkWidgetPointer) {
        self.widget = widget
        g_object_ref_sink(widget)
    }

    isolated deinit {
        g_object_unref(widget)
    }
}
