import Foundation
import Kingfisher

// snippet: migration-button
@MainActor final class ImageButton: KingfisherControlStateImageSettable {
    let stateImages = ControlStateImages()             // the images a state shows, loaded per state
    let backgroundStateImages = ControlStateImages()
    var state: KFControlState = .normal { didSet { redraw() } }

    nonisolated init() {}
    func attach() { stateImages.onChange = { [weak self] _ in self?.redraw() } }
    func redraw() { _ = stateImages.image(for: state) /* draw it */ }
}
// end snippet

/// docs/MigratingFromApplePlatforms.md's snippets: a view ported from UIKit, a button, named
/// images and colours. `placeholderImage` and `brokenImage` are decoded images.
@MainActor struct MigrationSnippets {
    let log: PrintLog
    /// Keeps what a snippet prints.
    nonisolated func print(_ items: Any...) { log.append(items) }

    func ported(placeholderImage: KFCrossPlatformImage, brokenImage: KFCrossPlatformImage) {
        // snippet: migration-ported-view
        let avatar = AvatarView()                              // was: a UIImageView
        avatar.kf.indicatorType = .activity
        avatar.kf.setImage(
            with: URL(string: "https://example.com/avatar.jpg"),
            placeholder: placeholderImage,
            options: [.processor(DownsamplingImageProcessor(size: CGSize(width: 64, height: 64))),
                      .transition(.fade(0.25)), .onFailureImage(brokenImage)]
        ) { result in                                          // on the main actor, as in an app
            if case .failure(let error) = result, !error.isNotCurrentTask { print(error) }
        }
        // end snippet
    }

    func button(url: URL, placeholderImage: KFCrossPlatformImage) {
        // snippet: migration-button-use
        let button = ImageButton()
        button.attach()
        button.kf.setImage(with: url, for: .normal, placeholder: placeholderImage)
        button.kf.setImage(with: url, for: [.selected, .highlighted])
        button.kf.setBackgroundImage(with: url, for: .normal)
        button.kf.cancelImageDownloadTask()                    // every state's request
        // end snippet
    }

    nonisolated func named() {
        // snippet: migration-named-images
        let logo = KFCrossPlatformImage(named: "logo")                       // logo.png, then logo@2x.png… beside the executable
        let icon = KFCrossPlatformImage(named: "icons/star.webp", in: .main) // or a SwiftPM target's Bundle.module
        let grey = KFCrossPlatformColor.gray                                 // white 0.5, as in UIKit
        print(logo?.scale ?? 0, icon?.size ?? .zero, grey)
        // end snippet
    }

    nonisolated func callbacks(url: URL) {
        // snippet: migration-callback-queue
        // A program whose main thread runs a loop that services the main queue (a GUI) can ask
        // for Apple's default; a command-line tool or server keeps .untouch.
        KingfisherManager.shared.defaultOptions = [.callbackQueue(.mainCurrentOrAsync)]
        // end snippet
    }
}
