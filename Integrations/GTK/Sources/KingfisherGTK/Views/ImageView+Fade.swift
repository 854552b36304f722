import Foundation
import Kingfisher
import KingfisherGTKShims

/// A running opacity animation of an ``ImageView``'s picture.
@MainActor
struct FadeState {
    let ticker: FrameTicker
    /// Brings the view to the fade's end state and calls the completion with whether it ran to the end.
    let finish: @MainActor (Bool) -> Void
    /// The linear progress of the last frame, 0...1.
    var progress: Double
}

extension ImageView {
    /// Animates the opacity of the image from `from` to `to` over `duration` seconds on the widget's
    /// frame clock, shaped by `curve`.
    ///
    /// The first frame after the call shows `from`; the first frame at or after `duration` shows
    /// `to` and calls `completion(true)`. A new fade, a new ``image`` or ``cancelFade()`` ends a
    /// running one at its end state and calls its completion with `false`. When the widget is not
    /// mapped its clock does not tick, so the end state is applied at once (unless ``frameClock``
    /// drives the view).
    public func fade(
        from: Double, to: Double, duration: TimeInterval, curve: AnimationCurve = .easeInOut,
        completion: (@MainActor (_ finished: Bool) -> Void)? = nil
    ) {
        finishFade(finished: false)
        let picture = self.picture
        animate(duration: duration, curve: curve, apply: { value in
            gtk_widget_set_opacity(picture, from + (to - from) * value)
        }, finish: { finished in
            gtk_widget_set_opacity(picture, to)
            completion?(finished)
        })
    }

    /// Shows `image`, cross-fading from what is shown now (an image, often the placeholder) over
    /// `duration` seconds on the frame clock: Kingfisher's `.fade` transition.
    ///
    /// The outgoing image stays underneath at full opacity while the new one fades in over it, so
    /// a mid-transition frame mixes the two. Ends early as ``fade(from:to:duration:curve:completion:)`` does.
    public func transition(
        to image: KFCrossPlatformImage?, duration: TimeInterval, curve: AnimationCurve = .easeInOut,
        completion: (@MainActor (_ finished: Bool) -> Void)? = nil
    ) {
        finishFade(finished: false)
        let outgoing = gtk_picture_get_paintable(kf_gtk_picture(picture))
        gtk_picture_set_paintable(kf_gtk_picture(outgoingPicture), outgoing)
        gtk_widget_set_visible(outgoingPicture, 1)
        // Through the stored property without its observer, which would cancel this very fade.
        setImageWithoutFinishingFade(image)
        let picture = self.picture
        let outgoingPicture = self.outgoingPicture
        gtk_widget_set_opacity(picture, 0)
        animate(duration: duration, curve: curve, apply: { value in
            gtk_widget_set_opacity(picture, value)
        }, finish: { finished in
            gtk_widget_set_opacity(picture, 1)
            gtk_widget_set_visible(outgoingPicture, 0)
            gtk_picture_set_paintable(kf_gtk_picture(outgoingPicture), nil)
            completion?(finished)
        })
    }

    /// The linear progress (0...1) of the running fade at its last frame; `nil` when none runs.
    public var fadeProgress: Double? { fadeState?.progress }

    /// Ends a running fade at its end state; its completion gets `false`.
    public func cancelFade() {
        finishFade(finished: false)
    }

    func finishFade(finished: Bool) {
        guard let state = fadeState else { return }
        fadeState = nil
        state.ticker.stop()
        state.finish(finished)
    }

    private func animate(
        duration: TimeInterval, curve: AnimationCurve,
        apply: @escaping @MainActor (Double) -> Void, finish: @escaping @MainActor (Bool) -> Void
    ) {
        apply(curve(0))
        guard duration > 0, frameClock != nil || gtk_widget_get_mapped(widget) != 0 else {
            finish(true)
            return
        }
        var start: Int64?
        let ticker = FrameTicker(widget: widget, clock: frameClock) { [weak self] time in
            guard let self else { return false }
            let begin = start ?? time
            start = begin
            let progress = min(1, Double(time - begin) / 1_000_000 / duration)
            self.fadeState?.progress = progress
            apply(curve(progress))
            if progress >= 1 {
                self.finishFade(finished: true)
                return false
            }
            return true
        }
        fadeState = FadeState(ticker: ticker, finish: finish, progress: 0)
    }
}
