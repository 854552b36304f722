import Foundation

/// The kind of loading indicator an image target shows, set with `kf.indicatorType`.
///
/// `.activity` and `.image(imageData:)` need a toolkit to draw them: the target makes the
/// concrete indicator in ``KingfisherImageSettable/makeIndicator(for:)`` (the default makes the
/// toolkit-free models ``ActivityIndicator`` and ``ImageIndicator``, which a toolkit adapter draws).
public enum IndicatorType: Sendable {
    /// No indicator.
    case none
    /// The toolkit's spinner.
    case activity
    /// An image, animated or not (such as a GIF), from its encoded bytes.
    case image(imageData: Data)
    /// Your own indicator.
    case custom(indicator: any Indicator)
}

/// How large an indicator's view is on its target.
public enum IndicatorSizeStrategy: Sendable, Hashable {
    /// The view's own natural size.
    case intrinsicSize
    /// The target's whole size.
    case full
    /// The given size in points.
    case size(CGSize)
}

/// A loading indicator on an image target.
///
/// `kf.setImage` calls ``startAnimatingView()`` once when a request starts and
/// ``stopAnimatingView()`` once when it ends, before the image is shown. Requests on a reused
/// target overlap (a superseded one ends after its successor started), so an indicator that
/// shows a single spinner should count starts and stops and animate while the count is above
/// zero, as ``ActivityIndicator`` and ``ImageIndicator`` do. The target places ``view`` (in
/// ``KingfisherImageSettable/addIndicator(_:)``) using ``centerOffset`` and
/// ``sizeStrategy(in:)``.
///
/// An indicator may be a struct (its ``view`` then refers to the toolkit widget it drives) or a
/// class with state of its own.
@MainActor
public protocol Indicator: Sendable {
    /// Starts (or counts one more) loading.
    func startAnimatingView()
    /// Stops (or counts one less) loading.
    func stopAnimatingView()
    /// How far the indicator's center is from the target's center, in points. Default zero.
    var centerOffset: CGPoint { get }
    /// The toolkit widget that shows the indicator, if the indicator has one; the target's
    /// toolkit knows its type. Default `nil`.
    var view: AnyObject? { get }
    /// How large ``view`` is on `target`. Default ``IndicatorSizeStrategy/full``.
    func sizeStrategy(in target: any KingfisherImageSettable) -> IndicatorSizeStrategy
}

extension Indicator {
    /// No offset.
    public var centerOffset: CGPoint { .zero }
    /// No widget.
    public var view: AnyObject? { nil }
    /// The target's whole size.
    public func sizeStrategy(in target: any KingfisherImageSettable) -> IndicatorSizeStrategy { .full }
}

/// A spinner's state without a toolkit: a count of loads in progress, and the widget a
/// toolkit adapter attached to draw it.
@MainActor
public final class ActivityIndicator: Indicator {
    /// The number of loads started and not yet stopped.
    public private(set) var activeCount = 0
    /// The widget drawing the spinner, set by the toolkit adapter.
    public var view: AnyObject?
    /// Called when the spinner should start (`true`) or stop (`false`) animating.
    public var onAnimatingChanged: (@MainActor (Bool) -> Void)?

    /// A stopped spinner with no widget.
    public nonisolated init() {}

    /// Whether the spinner is animating.
    public var isAnimating: Bool { activeCount > 0 }

    /// Counts a load; the first one starts the animation.
    public func startAnimatingView() {
        activeCount += 1
        if activeCount == 1 { onAnimatingChanged?(true) }
    }

    /// Counts a finished load; the last one stops the animation.
    public func stopAnimatingView() {
        guard activeCount > 0 else { return }
        activeCount -= 1
        if activeCount == 0 { onAnimatingChanged?(false) }
    }

    /// Intrinsic size: a spinner keeps its own size.
    public func sizeStrategy(in target: any KingfisherImageSettable) -> IndicatorSizeStrategy { .intrinsicSize }
}

/// An indicator showing a decoded image (a GIF spinner, say), without a toolkit: the image, a
/// count of loads in progress, and the widget a toolkit adapter attached to draw it.
@MainActor
public final class ImageIndicator: Indicator {
    /// The decoded indicator image, with all its frames.
    public let image: KFCrossPlatformImage
    /// The number of loads started and not yet stopped.
    public private(set) var activeCount = 0
    /// The widget drawing the image, set by the toolkit adapter.
    public var view: AnyObject?
    /// Called when the image should start (`true`) or stop (`false`) animating.
    public var onAnimatingChanged: (@MainActor (Bool) -> Void)?

    /// An indicator for the encoded image `imageData`; `nil` when the bytes do not decode.
    public nonisolated init?(imageData: Data, options: KingfisherParsedOptionsInfo = KingfisherParsedOptionsInfo(nil)) {
        guard let image = DefaultImageProcessor.default.process(item: .data(imageData), options: options) else {
            return nil
        }
        self.image = image
    }

    /// Whether the indicator is animating.
    public var isAnimating: Bool { activeCount > 0 }

    /// Counts a load; the first one starts the animation.
    public func startAnimatingView() {
        activeCount += 1
        if activeCount == 1 { onAnimatingChanged?(true) }
    }

    /// Counts a finished load; the last one stops the animation.
    public func stopAnimatingView() {
        guard activeCount > 0 else { return }
        activeCount -= 1
        if activeCount == 0 { onAnimatingChanged?(false) }
    }

    /// Intrinsic size: the image keeps its own size.
    public func sizeStrategy(in target: any KingfisherImageSettable) -> IndicatorSizeStrategy { .intrinsicSize }
}
