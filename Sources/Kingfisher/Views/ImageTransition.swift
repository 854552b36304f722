import Foundation

/// How a loaded image replaces what an image target showed, set with `.transition(_:)`.
///
/// A transition is a description: `kf.setImage` turns it into an ``ImageTransitionTimeline``
/// (progress from 0 to 1 over ``duration``) and hands that to the target's
/// ``KingfisherImageSettable/runTransition(_:)``, which a toolkit drives from its frame clock. A
/// target that does not animate shows the image at once and finishes the timeline.
///
/// It runs only for images that were downloaded or provided (`cacheType == .none`); add
/// `.forceTransition` to run it for cache hits as well.
public enum ImageTransition: Sendable {
    /// Show the image at once.
    case none
    /// Cross-fade to the image over the given seconds.
    case fade(TimeInterval)
    /// Flip around the vertical axis, left edge first, over the given seconds.
    case flipFromLeft(TimeInterval)
    /// Flip around the vertical axis, right edge first, over the given seconds.
    case flipFromRight(TimeInterval)
    /// Flip around the horizontal axis, top edge first, over the given seconds.
    case flipFromTop(TimeInterval)
    /// Flip around the horizontal axis, bottom edge first, over the given seconds.
    case flipFromBottom(TimeInterval)
    /// Your own transition: `animations` runs when the timeline starts (it must show the image;
    /// when `nil` the image is set for you) and `completion` when it ends (`false` if cut short).
    case custom(
        duration: TimeInterval,
        options: AnimationOptions,
        animations: (@MainActor @Sendable (any KingfisherImageSettable, KFCrossPlatformImage) -> Void)?,
        completion: (@MainActor @Sendable (Bool) -> Void)?
    )

    /// Hints for the toolkit that plays a transition; the curve shapes ``ImageTransitionTimeline/easedProgress``.
    public struct AnimationOptions: OptionSet, Sendable, Hashable {
        /// The bits of the set.
        public let rawValue: UInt
        /// Makes a set from its bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Slow at both ends (the default curve when no curve is given).
        public static let curveEaseInOut = AnimationOptions(rawValue: 1 << 0)
        /// Slow at the start.
        public static let curveEaseIn = AnimationOptions(rawValue: 1 << 1)
        /// Slow at the end.
        public static let curveEaseOut = AnimationOptions(rawValue: 1 << 2)
        /// Even speed.
        public static let curveLinear = AnimationOptions(rawValue: 1 << 3)
        /// The target keeps taking input while the transition plays.
        public static let allowUserInteraction = AnimationOptions(rawValue: 1 << 4)
    }

    /// What the toolkit draws while a timeline plays.
    public enum Effect: Sendable, Hashable {
        /// Nothing to draw: the image is simply shown.
        case none
        /// The new image's opacity follows the eased progress.
        case crossDissolve
        /// A flip starting at the given edge: the old image turns away during the first half of
        /// the progress and the new one turns in during the second.
        case flip(Edge)
        /// Drawn by the `.custom` transition's own `animations`.
        case custom
    }

    /// The edge a flip starts from.
    public enum Edge: Sendable, Hashable {
        /// The left edge.
        case left
        /// The right edge.
        case right
        /// The top edge.
        case top
        /// The bottom edge.
        case bottom
    }

    /// The length in seconds (0 for ``none``; negative or non-finite values count as 0).
    public var duration: TimeInterval {
        let raw: TimeInterval
        switch self {
        case .none: raw = 0
        case .fade(let value), .flipFromLeft(let value), .flipFromRight(let value),
             .flipFromTop(let value), .flipFromBottom(let value):
            raw = value
        case .custom(let value, _, _, _): raw = value
        }
        return raw.isFinite ? max(0, raw) : 0
    }

    /// The animation hints: the custom transition's own, else ease-in-out.
    public var animationOptions: AnimationOptions {
        if case .custom(_, let options, _, _) = self { return options }
        return .curveEaseInOut
    }

    /// What the toolkit draws for this transition.
    public var effect: Effect {
        switch self {
        case .none: return .none
        case .fade: return .crossDissolve
        case .flipFromLeft: return .flip(.left)
        case .flipFromRight: return .flip(.right)
        case .flipFromTop: return .flip(.top)
        case .flipFromBottom: return .flip(.bottom)
        case .custom: return .custom
        }
    }

    /// Whether a loaded image with `cacheType` plays this transition under `forceTransition`.
    func applies(to cacheType: CacheType, forceTransition: Bool) -> Bool {
        if case .none = self { return false }
        return cacheType == .none || forceTransition
    }
}
