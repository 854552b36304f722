import Foundation

/// Anything that can show an image loaded by `kf.setImage`: an image view of a toolkit, a cell,
/// a terminal renderer, a test double.
///
/// A conforming type says how to show and read its image; everything else has a default.
/// Kingfisher keeps each target's loading state (the current request's identifier and task, the
/// placeholder and the indicator) in a ``KingfisherTargetState``, reached through
/// ``kingfisherState``. Linux has no associated objects, so the state lives in one of two places:
///
/// - **One stored property** (recommended for classes you own): declare
///   `let kingfisherState = KingfisherTargetState()`. It lives and dies with the target.
/// - **No stored property** (for classes you extend but do not own): the default
///   ``kingfisherState`` keeps the state in a main-actor side table keyed by the object's
///   identity, holding the object weakly. Entries of deallocated targets are dropped as the table
///   is used; a new object at a reused address never inherits an old state.
///
/// All members run on the main actor. To let a toolkit draw indicators and transitions, implement
/// ``makeIndicator(for:)``, ``addIndicator(_:)``, ``removeIndicator(_:)`` and ``runTransition(_:)``.
public protocol KingfisherImageSettable: KingfisherCompatible {
    /// Shows `image` (`nil` clears the target).
    @MainActor func setImage(_ image: KFCrossPlatformImage?, options: KingfisherParsedOptionsInfo)
    /// The image the target shows now.
    @MainActor func getImage() -> KFCrossPlatformImage?
    /// The loading state Kingfisher keeps for this target; see the type's discussion.
    @MainActor var kingfisherState: KingfisherTargetState { get }
    /// The indicator for `type`. Default: `nil` for `.none`, the given one for `.custom`, an
    /// ``ActivityIndicator`` for `.activity`, an ``ImageIndicator`` (or `nil` if the bytes do not
    /// decode) for `.image`.
    @MainActor func makeIndicator(for type: IndicatorType) -> (any Indicator)?
    /// Places `indicator` on the target (its ``Indicator/view``, sized and offset as it asks).
    /// Default: nothing to place.
    @MainActor func addIndicator(_ indicator: any Indicator)
    /// Takes `indicator` off the target. Default: nothing.
    @MainActor func removeIndicator(_ indicator: any Indicator)
    /// Plays `timeline` on the target's clock: call ``ImageTransitionTimeline/start(at:)`` now and
    /// ``ImageTransitionTimeline/update(at:)`` on each frame. Default: no animation, the timeline
    /// starts and finishes at once.
    @MainActor func runTransition(_ timeline: ImageTransitionTimeline)
    /// Whether animations set on this target decode every frame at once. Default `true`; a
    /// target that plays animations through an ``Animator`` returns `false`, so an animated image
    /// arrives with a ``KFCrossPlatformImage/frameSource`` and one decoded frame (unless the request
    /// has `.preloadAllAnimationData`).
    @MainActor func shouldPreloadAllAnimation() -> Bool
}

/// A target with an `image` property, such as a toolkit's image view.
///
/// Conforming is all it takes: ``KingfisherImageSettable/setImage(_:options:)`` and
/// ``KingfisherImageSettable/getImage()`` go through ``image``.
public protocol KingfisherHasImageComponent: KingfisherImageSettable {
    /// The image the target shows.
    @MainActor var image: KFCrossPlatformImage? { get set }
}

extension KingfisherHasImageComponent {
    /// Sets ``image``.
    @MainActor public func setImage(_ image: KFCrossPlatformImage?, options: KingfisherParsedOptionsInfo) {
        self.image = image
    }

    /// Reads ``image``.
    @MainActor public func getImage() -> KFCrossPlatformImage? {
        image
    }
}

extension KingfisherImageSettable {
    /// The state from the side table; declare a stored `kingfisherState` to skip the table.
    @MainActor public var kingfisherState: KingfisherTargetState {
        KingfisherTargetState.sideTableState(for: self)
    }

    /// The toolkit-free indicators; see the requirement.
    @MainActor public func makeIndicator(for type: IndicatorType) -> (any Indicator)? {
        switch type {
        case .none: return nil
        case .activity: return ActivityIndicator()
        case .image(let data): return ImageIndicator(imageData: data)
        case .custom(let indicator): return indicator
        }
    }

    /// Nothing to place.
    @MainActor public func addIndicator(_ indicator: any Indicator) {}

    /// Nothing to remove.
    @MainActor public func removeIndicator(_ indicator: any Indicator) {}

    /// Every frame at once.
    @MainActor public func shouldPreloadAllAnimation() -> Bool { true }

    /// Shows the image at once and finishes the timeline.
    @MainActor public func runTransition(_ timeline: ImageTransitionTimeline) {
        timeline.start(at: 0)
        timeline.update(at: timeline.duration)
    }
}
