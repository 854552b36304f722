import Foundation
// snippet: cheat-image-target
import Kingfisher

@MainActor final class AvatarView: KingfisherHasImageComponent {
    let kingfisherState = KingfisherTargetState()      // the one stored property Kingfisher needs
    var image: KFCrossPlatformImage? { didSet { redraw() } }

    nonisolated init() {}
    func redraw() { /* hand `image` to your toolkit */ }

    // Optional: draw transitions on your frame clock (the default shows the image at once).
    func runTransition(_ timeline: ImageTransitionTimeline) {
        timeline.start(at: ProcessInfo.processInfo.systemUptime)
        // then on each frame: timeline.update(at: now), draw timeline.effect at timeline.easedProgress
    }
}
// end snippet

// snippet: cheat-placeholder-view
@MainActor final class LoadingLabel: Placeholder {
    let text: String
    init(text: String) { self.text = text }
    func add(to imageView: KFCrossPlatformImageView) { /* show `text` over the target */ }
    func remove(from imageView: KFCrossPlatformImageView) { /* and take it away */ }
}
// end snippet

// snippet: cheat-custom-indicator
@MainActor final class DotsIndicator: Indicator {
    private(set) var isShowing = false
    nonisolated init() {}
    func startAnimatingView() { isShowing = true }    // start your toolkit's animation
    func stopAnimatingView() { isShowing = false }
}
// end snippet

/// The cheat sheet's placeholder, indicator and transition snippets, on an ``AvatarView``.
@MainActor struct CheatSheetTargetSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    nonisolated func print(_ items: Any...) { log.append(items) }

    func placeholders(imageView: AvatarView, url: URL, placeholderImage: KFCrossPlatformImage) {
        // snippet: cheat-placeholder-image
        imageView.kf.setImage(with: url, placeholder: placeholderImage)
        // end snippet
        // snippet: cheat-placeholder-view-use
        imageView.kf.setImage(with: url, placeholder: LoadingLabel(text: "Loading…"))
        // end snippet
    }

    func indicators(imageView: AvatarView, url: URL, gifData: Data) {
        // snippet: cheat-indicator
        imageView.kf.indicatorType = .activity                    // your toolkit's spinner
        imageView.kf.indicatorType = .image(imageData: gifData)   // an image, animated or not
        imageView.kf.indicatorType = .custom(indicator: DotsIndicator())
        imageView.kf.setImage(with: url)
        // end snippet
    }

    func transitions(imageView: AvatarView, url: URL) {
        // snippet: cheat-transition
        imageView.kf.setImage(with: url, options: [.transition(.fade(0.25))])
        // Also for images from the memory or disk cache, which show at once by default:
        imageView.kf.setImage(with: url, options: [.transition(.flipFromBottom(0.3)), .forceTransition])
        // end snippet
    }
}
