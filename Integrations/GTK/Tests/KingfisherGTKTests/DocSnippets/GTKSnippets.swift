import Foundation
// snippet: gtk-window
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims  // kf_gtk_window(), kf_gtk_widget(): GTK's cast macros
// end snippet

/// docs/GTK.md's snippets, compiled with the adapter's tests (the repository's DocSnippetTests
/// checks that the guide shows them as they are here). `someImage` is a decoded image. Not run:
/// the window example hands the thread to GTK's main loop until the window closes.
enum GTKDocSnippets {
    static func window(someImage: KFCrossPlatformImage) throws {
        // snippet: gtk-window
        try MainActor.assumeIsolated {
            try GTKMainLoop.initialize()            // GTK, and a drain that runs @MainActor work in its loop
            let window = kf_gtk_window(gtk_window_new())
            let imageView = ImageView()             // a GtkPicture under a GtkOverlay
            imageView.contentMode = .aspectFill     // .scaleToFill, .aspectFit, .aspectFill, .center
            imageView.kf.indicatorType = .activity  // a GtkSpinner; .image(imageData:) plays a GIF
            imageView.kf.setImage(
                with: URL(string: "https://example.com/photo.jpg"),
                placeholder: WidgetPlaceholder(kf_gtk_widget(gtk_label_new("Loading…"))),  // or an image
                options: [.transition(.fade(0.3)), .onFailureImage(someImage)])
            gtk_window_set_child(window, imageView.widget)
            gtk_window_present(window)
            GTKMainLoop.run()
        }
        // end snippet
    }

    @MainActor static func animatedAndButton(url: URL, placeholderImage: KFCrossPlatformImage) {
        // snippet: gtk-animated-and-button
        let animated = AnimatedImageView()          // plays GIFs, animated WebPs and APNGs lazily
        animated.framePreloadCount = 10
        animated.kf.setImage(with: url)

        let button = Button()                       // a GtkButton: an image over a background, per state
        button.kf.setImage(with: url, for: .normal, placeholder: placeholderImage)
        button.kf.setBackgroundImage(with: url, for: .highlighted)
        // end snippet
    }
}
