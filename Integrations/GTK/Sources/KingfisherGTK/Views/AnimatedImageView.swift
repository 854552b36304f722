import Foundation
import Kingfisher
import KingfisherGTKShims

/// Told when an ``AnimatedImageView`` finishes a loop and when it stops for good.
@MainActor
public protocol AnimatedImageViewDelegate: AnyObject {
    /// The view played `count` loops so far.
    func animatedImageView(_ imageView: AnimatedImageView, didPlayAnimationLoops count: UInt)
    /// The view played its last loop (never for ``Kingfisher/Animator/RepeatCount/infinite``).
    func animatedImageViewDidFinishAnimating(_ imageView: AnimatedImageView)
}

/// A view that plays an animated ``Kingfisher/KFCrossPlatformImage`` on the widget's frame clock,
/// through an `Animator` that holds only ``framePreloadCount`` decoded frames.
///
/// ``widget`` is a `GtkPicture`. As a Kingfisher target (`view.kf.setImage(with: url)`) it asks for
/// lazily decoded animations, so a GIF or animated WebP arrives with one decoded frame and its
/// encoded bytes, and frames are decoded on a background queue just ahead of playback (unless the
/// request has `.preloadAllAnimationData`). An image whose frames are all decoded plays the same way.
/// The animation plays ``repeatCount`` loops and then rests on its last frame; a frame that fails to
/// decode stops it there (``animationError``). With ``autoPlayAnimatedImage`` it plays while the
/// widget is mapped and stops when it is unmapped.
@MainActor
public final class AnimatedImageView: KingfisherHasImageComponent {
    /// The root widget (a `GtkPicture`); the view holds a reference to it for its lifetime.
    public let widget: GtkWidgetPointer
    /// The loading state of `kf.setImage` for this view.
    public let kingfisherState = KingfisherTargetState()
    private var ticker: FrameTicker?
    private var animator: Animator?
    private var shownIndex: Int?
    private var signalHandlers: [gulong] = []
    private let handlerContext: Unmanaged<WeakBox>
    private var relay: AnimatorRelay?

    /// The image played; setting it shows its first frame, and plays it if ``autoPlayAnimatedImage``
    /// is set and the widget is mapped.
    public var image: KFCrossPlatformImage? {
        didSet { reset() }
    }

    /// How the frames fit the view's area.
    public var contentMode: ContentMode = .scaleToFill {
        didSet { gtk_picture_set_content_fit(kf_gtk_picture(widget), contentMode.contentFit) }
    }

    /// Play while mapped and stop when unmapped; `true` by default.
    public var autoPlayAnimatedImage = true
    /// The most decoded frames held at once (Kingfisher's `framePreloadCount`); 10 by default.
    /// Takes effect the next time an image is set.
    public var framePreloadCount = 10
    /// How many loops to play; `.infinite` by default. Takes effect the next time an image is set.
    public var repeatCount: Animator.RepeatCount = .infinite
    /// Decode frames no larger than the widget's pixel size (aspect kept); `true` by default.
    public var needsPrescaling = true
    /// Told about loops and the end of the animation; held weakly.
    public weak var delegate: (any AnimatedImageViewDelegate)?
    /// Drives playback from this clock instead of the widget's frame clock when set.
    public var frameClock: ManualFrameClock?

    /// The index of the frame shown.
    public var currentFrameIndex: Int { animator?.currentFrameIndex ?? 0 }
    /// Loops played so far.
    public var completedLoops: UInt { animator?.loopsPlayed ?? 0 }
    /// True while the frame clock drives the animation.
    public var isAnimating: Bool { ticker?.isActive ?? false }
    /// The animator playing the image, once it has one.
    public var currentAnimator: Animator? { animator }
    /// Why playback stopped early: a frame that could not be decoded.
    public var animationError: KingfisherError? { animator?.error }

    /// A view playing `image`.
    public init(image: KFCrossPlatformImage? = nil) {
        let picture = gtk_picture_new()
        g_object_ref_sink(picture)
        widget = kf_gtk_widget(picture)
        gtk_picture_set_can_shrink(kf_gtk_picture(widget), 1)
        gtk_picture_set_content_fit(kf_gtk_picture(widget), contentMode.contentFit)
        let box = WeakBox()
        handlerContext = Unmanaged.passRetained(box)
        box.view = self
        let context = handlerContext.toOpaque()
        signalHandlers.append(kf_g_signal_connect_plain(widget, "map", { _, data in
            guard let data else { return }
            MainActor.assumeIsolated {
                let view = Unmanaged<WeakBox>.fromOpaque(data).takeUnretainedValue().view
                if let view, view.autoPlayAnimatedImage { view.startAnimating() }
            }
        }, context, nil))
        signalHandlers.append(kf_g_signal_connect_plain(widget, "unmap", { _, data in
            guard let data else { return }
            MainActor.assumeIsolated {
                let view = Unmanaged<WeakBox>.fromOpaque(data).takeUnretainedValue().view
                if let view, view.autoPlayAnimatedImage { view.stopAnimating() }
            }
        }, context, nil))
        self.image = image
    }

    isolated deinit {
        ticker?.stop()
        for handler in signalHandlers { g_signal_handler_disconnect(widget, handler) }
        handlerContext.release()
        g_object_unref(widget)
    }

    /// Animations set through `kf.setImage` arrive lazily decoded.
    public func shouldPreloadAllAnimation() -> Bool { false }

    /// Starts playing from the frame shown; does nothing for a still image, when playing, or when
    /// the loops are done.
    public func startAnimating() {
        guard let image, image.frameCount > 1, !isAnimating else { return }
        let animator = self.animator ?? makeAnimator(for: image)
        guard !animator.isFinished else { return }
        ticker = FrameTicker(widget: widget, clock: frameClock) { [weak self] time in
            self?.tick(at: Double(time) / 1_000_000) ?? false
        }
    }

    /// Stops on the frame shown.
    public func stopAnimating() {
        ticker?.stop()
        ticker = nil
    }

    /// Moves playback to `time` (seconds on the clock driving it) and shows the current frame;
    /// returns whether playback goes on.
    private func tick(at time: TimeInterval) -> Bool {
        guard let animator else { return false }
        animator.tick(at: time)
        showCurrentFrame()
        return !animator.isFinished
    }

    private func makeAnimator(for image: KFCrossPlatformImage) -> Animator {
        let source: any ImageFrameSource = image.frameSource ?? DecodedFrameSource(frames: image.frames)
        var maxPixelSize: CGSize?
        if needsPrescaling {
            let scale = Int(gtk_widget_get_scale_factor(widget))
            let width = Int(gtk_widget_get_width(widget)) * scale
            let height = Int(gtk_widget_get_height(widget)) * scale
            if width > 0, height > 0 { maxPixelSize = CGSize(width: width, height: height) }
        }
        let animator = Animator(frameSource: source, maxFrameCount: framePreloadCount, repeatCount: repeatCount,
                                maxPixelSize: maxPixelSize, scale: image.scale)
        let relay = AnimatorRelay(view: self)
        animator.delegate = relay
        self.relay = relay
        self.animator = animator
        return animator
    }

    private func reset() {
        stopAnimating()
        animator = nil
        relay = nil
        shownIndex = nil
        show(image?.frames.first)
        if autoPlayAnimatedImage, frameClock != nil || gtk_widget_get_mapped(widget) != 0 { startAnimating() }
    }

    private func showCurrentFrame() {
        guard let animator else { return }
        let index = animator.currentFrameIndex
        guard index != shownIndex, let frame = animator.currentFrameImage?.frames.first else { return }
        shownIndex = index
        show(frame)
    }

    private func show(_ frame: ImageFrame?) {
        guard let frame, let texture = frame.makeTexture(for: widget) else {
            gtk_picture_set_paintable(kf_gtk_picture(widget), nil)
            return
        }
        gtk_picture_set_paintable(kf_gtk_picture(widget), kf_gdk_paintable(UnsafeMutableRawPointer(texture)))
        g_object_unref(UnsafeMutableRawPointer(texture))
    }

    fileprivate func relayLoops(_ count: UInt) { delegate?.animatedImageView(self, didPlayAnimationLoops: count) }
    fileprivate func relayFinish() { delegate?.animatedImageViewDidFinishAnimating(self) }
}

/// Passes an `Animator`'s delegate calls, which come from ``AnimatedImageView``'s ticks on the main
/// actor, to the view's delegate.
private final class AnimatorRelay: AnimatorDelegate {
    private let view: WeakBox

    @MainActor init(view: AnimatedImageView) {
        let box = WeakBox()
        box.view = view
        self.view = box
    }

    func animator(_ animator: Animator, didPlayAnimationLoops count: UInt) {
        MainActor.assumeIsolated { view.view?.relayLoops(count) }
    }

    func animatorDidFinishAnimating(_ animator: Animator) {
        MainActor.assumeIsolated { view.view?.relayFinish() }
    }
}

/// A weak reference that GLib signal handlers can hold as their user data.
@MainActor
final class WeakBox {
    weak var view: AnimatedImageView?
}
