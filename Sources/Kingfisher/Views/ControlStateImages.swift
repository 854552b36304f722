import Foundation

/// A control's state, the key of a button's per-state images: the states UIKit's
/// `UIControl.State` names, without a toolkit.
///
/// States combine (`[.selected, .highlighted]`). A toolkit adapter maps its widget's flags onto
/// these and hands the result to ``ControlStateImages/image(for:)``.
public struct KFControlState: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// The bits of the state; `0` is ``normal``.
    public let rawValue: UInt

    /// A state from its bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// No other state: enabled, not pressed, not selected. Its image stands for every state without one.
    public static let normal: KFControlState = []
    /// Pressed.
    public static let highlighted = KFControlState(rawValue: 1 << 0)
    /// Not accepting input.
    public static let disabled = KFControlState(rawValue: 1 << 1)
    /// Selected, checked or toggled on.
    public static let selected = KFControlState(rawValue: 1 << 2)
    /// Focused for keyboard navigation.
    public static let focused = KFControlState(rawValue: 1 << 3)

    /// The state's names joined by `|`, such as `selected|highlighted`, or `normal`.
    public var description: String {
        let names: [(KFControlState, String)] = [
            (.highlighted, "highlighted"), (.disabled, "disabled"), (.selected, "selected"), (.focused, "focused"),
        ]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "normal" : present.joined(separator: "|")
    }
}

/// The images a control (a button) shows per ``KFControlState``, one kind of them: its foreground
/// images, or its background images.
///
/// Each state has an image target of its own, ``target(for:)``, so `kf.setImage(with:for:)`
/// loads through the same flow as any view: its own placeholder, its own latest-wins request, its
/// own cancellation. Whenever one of them changes its image, ``onChange`` runs; the toolkit then
/// shows ``image(for:)`` of the control's current state. Main actor only.
@MainActor
public final class ControlStateImages {
    /// The image target of one state: what `kf.setImage(with:for:)` loads into.
    @MainActor
    public final class StateTarget: KingfisherHasImageComponent {
        /// The state this target holds the image of.
        public let state: KFControlState
        /// The loading state of this state's requests.
        public let kingfisherState = KingfisherTargetState()
        /// Reports changes to the owner; weak, so a target kept by a request does not keep it.
        weak var owner: ControlStateImages?

        /// The image loaded (or placed) for ``state``; setting it runs the owner's ``ControlStateImages/onChange``.
        public var image: KFCrossPlatformImage? {
            didSet { owner?.onChange?(state) }
        }

        init(state: KFControlState, owner: ControlStateImages) {
            self.state = state
            self.owner = owner
        }
    }

    private var targets: [KFControlState: StateTarget] = [:]

    /// Runs with the state whose image changed; the toolkit redraws the control from ``image(for:)``.
    public var onChange: ((KFControlState) -> Void)?

    /// An empty set: no state has an image.
    public nonisolated init() {}

    /// The image target of `state`, made on first use.
    public func target(for state: KFControlState) -> StateTarget {
        if let target = targets[state] { return target }
        let target = StateTarget(state: state, owner: self)
        targets[state] = target
        return target
    }

    /// The image target of `state` if one was made.
    func existingTarget(for state: KFControlState) -> StateTarget? {
        targets[state]
    }

    /// The image set for exactly `state`, if any; no fallback.
    public func storedImage(for state: KFControlState) -> KFCrossPlatformImage? {
        targets[state]?.image
    }

    /// The image a control in `state` shows: the one for exactly `state`; else, when `state`
    /// includes ``KFControlState/focused``, the one for `state` without it; else ``KFControlState/normal``'s.
    public func image(for state: KFControlState) -> KFCrossPlatformImage? {
        if let image = storedImage(for: state) { return image }
        if state.contains(.focused), let image = storedImage(for: state.subtracting(.focused)) { return image }
        return storedImage(for: .normal)
    }

    /// The states that have an image target, in no particular order.
    public var states: [KFControlState] { Array(targets.keys) }

    /// Cancels the running request of every state.
    func cancelAll() {
        for target in targets.values { target.kf.cancelDownloadTask() }
    }
}

/// A control with per-state foreground and background images, such as a toolkit's button: it
/// gains `kf.setImage(with:for:)` and `kf.setBackgroundImage(with:for:)`.
///
/// Keep two ``ControlStateImages`` and show, for the control's current state, ``ControlStateImages/image(for:)``
/// of each whenever its ``ControlStateImages/onChange`` runs or the state changes.
public protocol KingfisherControlStateImageSettable: KingfisherCompatible {
    /// The foreground images by state.
    @MainActor var stateImages: ControlStateImages { get }
    /// The background images by state.
    @MainActor var backgroundStateImages: ControlStateImages { get }
}

@MainActor
extension KingfisherWrapper where Base: KingfisherControlStateImageSettable {
    /// Loads the image of `source` and shows it as the control's image in `state`.
    ///
    /// Each state loads on its own: a new request for a state supersedes only that state's
    /// earlier one. `placeholder` is shown for `state` while the image loads. Callbacks run as
    /// for `kf.setImage(with:)` on an image view (on the main actor; a memory hit before this returns).
    ///
    /// - Returns: The task of the request, or `nil` when it finished (or failed) at once.
    @discardableResult
    public func setImage(
        with source: Source?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        base.stateImages.target(for: state).kf.setImage(
            with: source, placeholder: placeholder, options: options,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads the image of `resource` (a `URL` is one) as the control's image in `state`; the same as
    /// the `Source` form with `resource?.convertToSource()`.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: resource?.convertToSource(), for: state, placeholder: placeholder, options: options,
                 progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads the image of `source` and shows it as the control's background in `state`; each
    /// state loads on its own, as for the foreground image.
    @discardableResult
    public func setBackgroundImage(
        with source: Source?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        base.backgroundStateImages.target(for: state).kf.setImage(
            with: source, placeholder: placeholder, options: options,
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Loads the image of `resource` (a `URL` is one) as the control's background in `state`.
    @discardableResult
    public func setBackgroundImage(
        with resource: (any Resource)?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setBackgroundImage(with: resource?.convertToSource(), for: state, placeholder: placeholder, options: options,
                           progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// The `Source` form of ``setImage(with:for:placeholder:options:progressBlock:completionHandler:)-(Source?,_,_,_,_,_)``
    /// without progress, so a trailing closure is the completion handler.
    @discardableResult
    public func setImage(
        with source: Source?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: source, for: state, placeholder: placeholder, options: options, progressBlock: nil,
                 completionHandler: completionHandler)
    }

    /// The `Resource` form without progress, so a trailing closure is the completion handler.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setImage(with: resource?.convertToSource(), for: state, placeholder: placeholder, options: options,
                 progressBlock: nil, completionHandler: completionHandler)
    }

    /// The `Source` form of the background setter without progress, so a trailing closure is the
    /// completion handler.
    @discardableResult
    public func setBackgroundImage(
        with source: Source?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setBackgroundImage(with: source, for: state, placeholder: placeholder, options: options, progressBlock: nil,
                           completionHandler: completionHandler)
    }

    /// The `Resource` form of the background setter without progress.
    @discardableResult
    public func setBackgroundImage(
        with resource: (any Resource)?,
        for state: KFControlState,
        placeholder: KFCrossPlatformImage? = nil,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: ImageSettingCompletionHandler? = nil
    ) -> DownloadTask? {
        setBackgroundImage(with: resource?.convertToSource(), for: state, placeholder: placeholder, options: options,
                           progressBlock: nil, completionHandler: completionHandler)
    }

    /// Cancels the running foreground-image requests of every state.
    public func cancelImageDownloadTask() {
        base.stateImages.cancelAll()
    }

    /// Cancels the running background-image requests of every state.
    public func cancelBackgroundImageDownloadTask() {
        base.backgroundStateImages.cancelAll()
    }

    /// The identifier of the foreground-image request `state` waits for; `nil` when none runs.
    public func taskIdentifier(for state: KFControlState) -> Source.Identifier.Value? {
        base.stateImages.existingTarget(for: state)?.kf.taskIdentifier
    }

    /// The identifier of the background-image request `state` waits for; `nil` when none runs.
    public func backgroundTaskIdentifier(for state: KFControlState) -> Source.Identifier.Value? {
        base.backgroundStateImages.existingTarget(for: state)?.kf.taskIdentifier
    }
}
