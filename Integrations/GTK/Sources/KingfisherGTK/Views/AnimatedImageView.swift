import Foundation
import Kingfisher
import KingfisherGTKShims

/// A view that plays an animated ``Kingfisher/KFCrossPlatformImage`` on the widget's frame clock.
///
/// ``widget`` is a `GtkPicture`. Each frame of the clock shows the image frame whose time span
/// contains the time played so far, so a late clock skips frames instead of slowing down. The image
/// plays its `loopCount` loops (0: forever) and then rests on its last frame. With
/// ``autoPlayAnimatedImage`` it plays while the widget is mapped and stops when it is unmapped.
/// Frames with no duration show for 0.1 s, as browsers do.
///
/// The frames come from the image's decoded frames for now; lazily decoded frames (`Animator`,
/// `framePreloadCount`, `repeatCount`, `needsPrescaling`) arrive with the view layer (issue 16).
@MainActor
public final class AnimatedImageView {
    /// The root widget (a `GtkPicture`); the view holds a reference to it for its lifetime.
    public let widget: GtkWidgetPointer
    private var ticker: FrameTicker?
    private var startTime: Int64?
    private var signalHandlers: [gulong] = []
    private let handlerContext: Unmanaged<WeakBox>

    /// The image played; setting it shows its first frame, and plays it if ``autoPlayAnimatedImage``
    /// is set and the widget is mapped.
    public var image: KFCrossPlatformImage? {
        didSet {
            stopAnimating()
            currentFrameIndex = 0
            completedLoops = 0
            showFrame(0)
            if autoPlayAnimatedImage, gtk_widget_get_mapped(widget) != 0 { startAnimating() }
        }
    }

    /// How the frames fit the view's area.
    public var contentMode: ContentMode = .scaleToFill {
        didSet { gtk_picture_set_content_fit(kf_gtk_picture(widget), contentMode.contentFit) }
    }

    /// Play while mapped and stop when unmapped; `true` by default.
    public var autoPlayAnimatedImage = true

    /// The index of the frame shown.
    public private(set) var currentFrameIndex = 0
    /// Loops played to the end since the animation started.
    public private(set) var completedLoops = 0
    /// True while the frame clock drives the animation.
    public var isAnimating: Bool { ticker?.isActive ?? false }

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
        showFrame(0)
    }

    isolated deinit {
        ticker?.stop()
        for handler in signalHandlers { g_signal_handler_disconnect(widget, handler) }
        handlerContext.release()
        g_object_unref(widget)
    }

    /// Starts playing from the frame shown; does nothing for a still image, when playing, or when
    /// the loops are done.
    public func startAnimating() {
        guard let image, image.isAnimated, !isAnimating else { return }
        guard image.loopCount == 0 || completedLoops < image.loopCount else { return }
        let resumeOffset = offset(ofFrame: currentFrameIndex, in: image)
        startTime = nil
        ticker = FrameTicker(widget: widget) { [weak self] time in
            guard let self else { return false }
            let start = self.startTime ?? (time - Int64(resumeOffset * 1_000_000))
            self.startTime = start
            return self.advance(to: Double(time - start) / 1_000_000)
        }
    }

    /// Stops on the frame shown.
    public func stopAnimating() {
        ticker?.stop()
        ticker = nil
    }

    /// The frame shown and loops completed after `elapsed` seconds of playing `image` from its start.
    public static func frame(at elapsed: TimeInterval, of image: KFCrossPlatformImage) -> (index: Int, completedLoops: Int) {
        let durations = image.frames.map(Self.displayDuration)
        let loop = durations.reduce(0, +)
        guard image.isAnimated, loop > 0, elapsed > 0 else { return (0, 0) }
        var loops = Int(elapsed / loop)
        if image.loopCount > 0, loops >= image.loopCount {
            return (durations.count - 1, image.loopCount)
        }
        var remaining = elapsed - Double(loops) * loop
        for (index, duration) in durations.enumerated() {
            if remaining < duration { return (index, loops) }
            remaining -= duration
        }
        loops += 1
        return (0, loops)
    }

    static func displayDuration(_ frame: ImageFrame) -> TimeInterval {
        frame.duration > 0 ? frame.duration : 0.1
    }

    private func offset(ofFrame index: Int, in image: KFCrossPlatformImage) -> TimeInterval {
        image.frames.prefix(index).map(Self.displayDuration).reduce(0, +)
    }

    private func advance(to elapsed: TimeInterval) -> Bool {
        guard let image else { return false }
        let (index, loops) = Self.frame(at: elapsed, of: image)
        completedLoops = loops
        if index != currentFrameIndex {
            currentFrameIndex = index
            showFrame(index)
        }
        return image.loopCount == 0 || loops < image.loopCount
    }

    private func showFrame(_ index: Int) {
        guard let image, image.frames.indices.contains(index) else {
            gtk_picture_set_paintable(kf_gtk_picture(widget), nil)
            return
        }
        guard let texture = image.frames[index].makeTexture() else {
            gtk_picture_set_paintable(kf_gtk_picture(widget), nil)
            return
        }
        gtk_picture_set_paintable(kf_gtk_picture(widget), kf_gdk_paintable(UnsafeMutableRawPointer(texture)))
        g_object_unref(UnsafeMutableRawPointer(texture))
    }
}

/// A weak reference that GLib signal handlers can hold as their user data.
@MainActor
final class WeakBox {
    weak var view: AnimatedImageView?
}
