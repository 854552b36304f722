import Foundation

/// One playing of an ``ImageTransition`` on an image target: progress from 0 to 1 over the
/// transition's duration, measured on a clock the toolkit owns.
///
/// `kf.setImage` makes a timeline and passes it to ``KingfisherImageSettable/runTransition(_:)``.
/// The toolkit calls ``start(at:)`` with its clock's time (this shows the new image, through the
/// custom `animations` when there are some), then ``update(at:)`` on each frame and draws the
/// ``ImageTransition/effect`` at ``easedProgress``. The timeline finishes by itself when the
/// progress reaches 1 (or at once for a zero duration); ``cancel()`` cuts it short. Either way the
/// transition's `completion` runs once and then the `setImage` completion handler. Any monotonic
/// clock in seconds works: the frame clock of a window, `ProcessInfo.systemUptime`, or a test's
/// counter.
@MainActor
public final class ImageTransitionTimeline {
    /// The transition being played.
    public let transition: ImageTransition
    /// The image shown by the end of the transition.
    public let image: KFCrossPlatformImage
    /// The length in seconds.
    public let duration: TimeInterval
    /// The linear progress, 0 before ``start(at:)`` and 1 once finished normally.
    public private(set) var progress: Double = 0
    /// Whether ``start(at:)`` has run.
    public private(set) var isStarted = false
    /// Whether the timeline is over (completed or cancelled).
    public private(set) var isFinished = false

    private var startTime: TimeInterval = 0
    private let showImage: @MainActor () -> Void
    private var onFinish: (@MainActor (Bool) -> Void)?

    /// A timeline for `transition` to `image`; `showImage` puts the image on the target and
    /// `onFinish` runs once with whether the timeline completed.
    init(
        transition: ImageTransition,
        image: KFCrossPlatformImage,
        showImage: @escaping @MainActor () -> Void,
        onFinish: @escaping @MainActor (Bool) -> Void
    ) {
        self.transition = transition
        self.image = image
        self.duration = transition.duration
        self.showImage = showImage
        self.onFinish = onFinish
    }

    /// What the toolkit draws.
    public var effect: ImageTransition.Effect { transition.effect }

    /// The progress after the transition's curve (see ``ImageTransition/AnimationOptions``).
    public var easedProgress: Double {
        Self.ease(progress, options: transition.animationOptions)
    }

    /// The new image's opacity for a cross-dissolve: the eased progress.
    public var opacity: Double { easedProgress }

    /// Starts the timeline at `time` and shows the image; later calls do nothing.
    public func start(at time: TimeInterval) {
        guard !isStarted, !isFinished else { return }
        isStarted = true
        startTime = time
        showImage()
        if duration == 0 { finish(completed: true) }
    }

    /// Moves the timeline to `time` and returns the eased progress; reaching the end finishes
    /// it. Times before the start count as the start; a call before ``start(at:)`` starts it.
    @discardableResult
    public func update(at time: TimeInterval) -> Double {
        if !isStarted { start(at: time) }
        guard !isFinished else { return easedProgress }
        let elapsed = time - startTime
        // Within a microsecond of the end counts as the end, so `start + duration` always finishes
        // despite rounding in the clock's arithmetic.
        progress = elapsed + Self.endTolerance >= duration ? 1 : max(0, elapsed / duration)
        if progress >= 1 { finish(completed: true) }
        return easedProgress
    }

    /// Ends the timeline now, leaving the image shown; the transition's completion gets `false`.
    public func cancel() {
        guard !isFinished else { return }
        if !isStarted {
            isStarted = true
            showImage()
        }
        finish(completed: false)
    }

    private func finish(completed: Bool) {
        guard !isFinished else { return }
        isFinished = true
        if completed { progress = 1 }
        let onFinish = self.onFinish
        self.onFinish = nil
        onFinish?(completed)
    }

    /// How close to the end, in seconds, counts as the end.
    static let endTolerance: TimeInterval = 1e-6

    /// `t` (0...1) shaped by the curve in `options`.
    static func ease(_ t: Double, options: ImageTransition.AnimationOptions) -> Double {
        let t = min(1, max(0, t))
        if options.contains(.curveLinear) { return t }
        if options.contains(.curveEaseIn) { return t * t }
        if options.contains(.curveEaseOut) { return 1 - (1 - t) * (1 - t) }
        return t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t)
    }
}
