import Foundation
import Kingfisher
import KingfisherGTK
import KingfisherGTKShims

/// A window showing one image at full size (fitted to the window), with a spinner while it loads.
@MainActor
public final class ViewerWindow {
    /// The `GtkWindow`.
    public let window: GtkWidgetPointer
    /// The view showing the image.
    public let imageView = ImageView()
    /// Called once when the window closes.
    var onClose: (@MainActor () -> Void)?
    private let url: URL
    private let cache: ImageCache
    private var closeHandler: gulong = 0
    private let context: Unmanaged<ViewerWindowBox>

    init(url: URL, cache: ImageCache) {
        self.url = url
        self.cache = cache
        window = kf_gtk_widget(gtk_window_new())
        gtk_window_set_title(kf_gtk_window(window), url.lastPathComponent)
        gtk_window_set_default_size(kf_gtk_window(window), 800, 600)
        imageView.contentMode = .aspectFit
        imageView.kf.indicatorType = .activity
        gtk_window_set_child(kf_gtk_window(window), imageView.widget)
        let box = ViewerWindowBox()
        context = Unmanaged.passRetained(box)
        box.viewer = self
        closeHandler = kf_g_signal_connect_plain(window, "destroy", { _, data in
            guard let data else { return }
            MainActor.assumeIsolated {
                let viewer = Unmanaged<ViewerWindowBox>.fromOpaque(data).takeUnretainedValue().viewer
                viewer?.onClose?()
                viewer?.onClose = nil
            }
        }, context.toOpaque(), nil)
    }

    isolated deinit {
        context.release()
    }

    func present() {
        gtk_window_present(kf_gtk_window(window))
        imageView.kf.setImage(with: url, options: [.targetCache(cache), .transition(.fade(0.2))])
    }
}

@MainActor
final class ViewerWindowBox {
    weak var viewer: ViewerWindow?
}
