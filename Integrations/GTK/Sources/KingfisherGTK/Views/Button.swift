import Foundation
import Kingfisher
import KingfisherGTKShims

/// A `GtkButton` that shows an image and a background image per state: the `UIButton` of
/// `button.kf.setImage(with: url, for: .normal)` and `button.kf.setBackgroundImage(with:for:)`.
///
/// ``widget`` is the `GtkButton`; connect its `clicked` signal as usual. Inside it, a background
/// ``ImageView`` fills the button's content area and a foreground ``ImageView`` sits centred over
/// it at the image's size. GTK's state flags map onto ``Kingfisher/KFControlState``: pressed
/// (`:active`) is `.highlighted`, insensitive is `.disabled`, selected or checked is `.selected`,
/// and keyboard focus shown (`:focus-visible`) is `.focused`; hovering has no UIKit state and
/// changes nothing. A state without an image of its own shows `.normal`'s (see
/// ``Kingfisher/ControlStateImages/image(for:)``). Main actor only; GTK must have been set up
/// with ``GTKMainLoop/initialize(drain:)``.
@MainActor
public final class Button: KingfisherControlStateImageSettable {
    /// The root widget (a `GtkButton`); the button holds a reference to it for its lifetime.
    public let widget: GtkWidgetPointer
    /// The foreground images by state.
    public let stateImages = ControlStateImages()
    /// The background images by state.
    public let backgroundStateImages = ControlStateImages()
    /// Shows the image of the current state.
    let imageView = ImageView()
    /// Shows the background image of the current state.
    let backgroundView = ImageView()
    private var signalHandler: gulong = 0
    private let handlerContext: Unmanaged<ButtonBox>

    /// The state the button is drawn in, from GTK's state flags.
    public var state: KFControlState {
        Self.controlState(of: gtk_widget_get_state_flags(widget))
    }

    /// Whether the button accepts input (GTK's sensitivity); `false` is `.disabled`.
    public var isEnabled: Bool {
        get { gtk_widget_get_sensitive(widget) != 0 }
        set { gtk_widget_set_sensitive(widget, newValue ? 1 : 0) }
    }

    /// Whether the button is selected (GTK's `:selected` flag); `true` is `.selected`.
    public var isSelected: Bool {
        get { gtk_widget_get_state_flags(widget).rawValue & GTK_STATE_FLAG_SELECTED.rawValue != 0 }
        set {
            if newValue {
                gtk_widget_set_state_flags(widget, GTK_STATE_FLAG_SELECTED, 0)
            } else {
                gtk_widget_unset_state_flags(widget, GTK_STATE_FLAG_SELECTED)
            }
        }
    }

    /// How the background image fills the content area; `.scaleToFill` by default, as `UIButton` draws it.
    public var backgroundContentMode: ContentMode {
        get { backgroundView.contentMode }
        set { backgroundView.contentMode = newValue }
    }

    /// The image shown now, for the current state.
    public var currentImage: KFCrossPlatformImage? { imageView.image }
    /// The background image shown now, for the current state.
    public var currentBackgroundImage: KFCrossPlatformImage? { backgroundView.image }

    /// An empty button: no image in any state.
    public init() {
        let button = gtk_button_new()
        g_object_ref_sink(button)
        widget = kf_gtk_widget(button)
        let overlay = kf_gtk_widget(gtk_overlay_new())
        gtk_overlay_set_child(kf_gtk_overlay(overlay), backgroundView.widget)
        gtk_overlay_add_overlay(kf_gtk_overlay(overlay), imageView.widget)
        gtk_overlay_set_measure_overlay(kf_gtk_overlay(overlay), imageView.widget, 1)
        gtk_widget_set_halign(imageView.widget, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(imageView.widget, GTK_ALIGN_CENTER)
        gtk_button_set_child(kf_gtk_button(widget), overlay)

        let box = ButtonBox()
        handlerContext = Unmanaged.passRetained(box)
        box.button = self
        signalHandler = kf_g_signal_connect_uint(widget, "state-flags-changed", { _, _, data in
            guard let data else { return }
            MainActor.assumeIsolated {
                Unmanaged<ButtonBox>.fromOpaque(data).takeUnretainedValue().button?.showImagesForState()
            }
        }, handlerContext.toOpaque(), nil)
        stateImages.onChange = { [weak self] _ in self?.showImagesForState() }
        backgroundStateImages.onChange = { [weak self] _ in self?.showImagesForState() }
    }

    isolated deinit {
        g_signal_handler_disconnect(widget, signalHandler)
        handlerContext.release()
        g_object_unref(widget)
    }

    /// The image set for exactly `state`, as `UIButton.image(for:)` without its fallback.
    public func image(for state: KFControlState) -> KFCrossPlatformImage? {
        stateImages.storedImage(for: state)
    }

    /// The background image set for exactly `state`.
    public func backgroundImage(for state: KFControlState) -> KFCrossPlatformImage? {
        backgroundStateImages.storedImage(for: state)
    }

    /// Shows `image` for `state` now, replacing what was loaded or set for it.
    public func setImage(_ image: KFCrossPlatformImage?, for state: KFControlState) {
        stateImages.target(for: state).image = image
    }

    /// Shows `image` as the background for `state` now.
    public func setBackgroundImage(_ image: KFCrossPlatformImage?, for state: KFControlState) {
        backgroundStateImages.target(for: state).image = image
    }

    /// Shows the images of the state the button is in.
    func showImagesForState() {
        let state = self.state
        let image = stateImages.image(for: state), background = backgroundStateImages.image(for: state)
        if imageView.image != image { imageView.image = image }
        if backgroundView.image != background { backgroundView.image = background }
    }

    /// The control state GTK's `flags` stand for.
    static func controlState(of flags: GtkStateFlags) -> KFControlState {
        var state: KFControlState = .normal
        func has(_ flag: GtkStateFlags) -> Bool { flags.rawValue & flag.rawValue != 0 }
        if has(GTK_STATE_FLAG_ACTIVE) { state.insert(.highlighted) }
        if has(GTK_STATE_FLAG_INSENSITIVE) { state.insert(.disabled) }
        if has(GTK_STATE_FLAG_SELECTED) || has(GTK_STATE_FLAG_CHECKED) { state.insert(.selected) }
        if has(GTK_STATE_FLAG_FOCUS_VISIBLE) { state.insert(.focused) }
        return state
    }
}

/// The button a signal handler reaches, held weakly so the handler never keeps it alive.
final class ButtonBox {
    weak var button: Button?
}
