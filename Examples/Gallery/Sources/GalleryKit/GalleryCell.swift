import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims

/// One reusable cell of the grid: an ``KingfisherGTK/ImageView`` for stills and an
/// ``KingfisherGTK/AnimatedImageView`` for GIFs, one of them shown. GTK's grid recycles cells as
/// it scrolls, so a cell is bound to many URLs over its life; latest-wins keeps a slow earlier
/// load from landing on it.
@MainActor
public final class GalleryCell {
    /// The cell's root widget (a vertical `GtkBox`), the list item's child.
    public let root: GtkWidgetPointer
    /// The view for still images.
    public let imageView = ImageView()
    /// The view for animations.
    public let animatedView = AnimatedImageView()
    /// The URL the cell is bound to now.
    public private(set) var url: URL?
    /// The URL whose image the cell shows, once its load finished for the current binding.
    public private(set) var loadedURL: URL?

    init(size: Int) {
        root = kf_gtk_widget(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
        g_object_ref_sink(root)
        for child in [imageView.widget, animatedView.widget] {
            gtk_widget_set_size_request(child, Int32(size), Int32(size))
            gtk_box_append(kf_gtk_box(root), child)
        }
        imageView.contentMode = .aspectFill
        animatedView.contentMode = .aspectFill
        imageView.kf.indicatorType = .activity
        gtk_widget_set_visible(animatedView.widget, 0)
    }

    isolated deinit {
        g_object_unref(root)
    }

    /// Whether `url` names a GIF (played by the animated view).
    static func isAnimation(_ url: URL) -> Bool {
        url.pathExtension.lowercased() == "gif"
    }

    /// Binds the cell to `url` and starts its load; `completion` runs once for this load.
    func bind(to url: URL, options: KingfisherOptionsInfo, placeholder: KFCrossPlatformImage?,
              completion: @escaping @MainActor (Result<RetrieveImageResult, KingfisherError>) -> Void) {
        self.url = url
        loadedURL = nil
        let animated = Self.isAnimation(url)
        gtk_widget_set_visible(imageView.widget, animated ? 0 : 1)
        gtk_widget_set_visible(animatedView.widget, animated ? 1 : 0)
        let handler: @MainActor @Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void = { [weak self] result in
            if let self, case .success = result, self.url == url { self.loadedURL = url }
            completion(result)
        }
        if animated {
            imageView.kf.setImage(with: nil as Source?)
            animatedView.kf.setImage(with: url, placeholder: placeholder, options: options, completionHandler: handler)
        } else {
            animatedView.kf.setImage(with: nil as Source?)
            imageView.kf.setImage(with: url, placeholder: placeholder, options: options, completionHandler: handler)
        }
    }

    /// Lets go of the bound URL; its load goes on only if nothing supersedes it.
    func unbind() {
        url = nil
        loadedURL = nil
    }

    /// Whether the cell shows its bound URL's image, with no fade running.
    public var isShowingItsImage: Bool {
        guard let url, loadedURL == url else { return false }
        return Self.isAnimation(url) || imageView.fadeProgress == nil
    }

    /// The widget showing the image now.
    public var visibleView: GtkWidgetPointer {
        url.map(Self.isAnimation) == true ? animatedView.widget : imageView.widget
    }
}
