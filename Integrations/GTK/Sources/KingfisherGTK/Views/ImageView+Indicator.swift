import Kingfisher
import KingfisherGTKShims

extension ImageView {
    /// Puts `indicator` in the indicator slot, centred over the view and hidden until
    /// ``isIndicatorVisible`` is set; `nil` empties the slot. The view holds a reference to it while
    /// it is in the slot.
    public func setIndicatorWidget(_ indicator: GtkWidgetPointer?) {
        if let old = indicatorWidget {
            if old == spinner { gtk_spinner_stop(kf_gtk_spinner(spinner)) }
            gtk_overlay_remove_overlay(kf_gtk_overlay(widget), old)
            g_object_unref(old)
        }
        if indicatorWidget != indicator {
            imageIndicator?.stopAnimating()
            if imageIndicator?.widget != indicator { imageIndicator = nil }
        }
        setIndicatorSlot(indicator)
    }

    private func setIndicatorSlot(_ indicator: GtkWidgetPointer?) {
        indicatorWidget = indicator
        guard let indicator else { return }
        g_object_ref(indicator)
        gtk_widget_set_visible(indicator, 0)
        gtk_widget_set_halign(indicator, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(indicator, GTK_ALIGN_CENTER)
        gtk_overlay_add_overlay(kf_gtk_overlay(widget), indicator)
    }

    /// Whether the indicator slot's widget is shown.
    public var isIndicatorVisible: Bool {
        get { indicatorWidget.map { gtk_widget_get_visible($0) != 0 } ?? false }
        set {
            guard let indicatorWidget else { return }
            gtk_widget_set_visible(indicatorWidget, newValue ? 1 : 0)
        }
    }

    /// The built-in activity indicator: a `GtkSpinner`, 32×32, for ``setIndicatorWidget(_:)`` or
    /// ``startSpinner()``.
    public var spinnerWidget: GtkWidgetPointer { spinner }

    /// Puts the built-in spinner in the indicator slot, shows it and starts it.
    public func startSpinner() {
        if indicatorWidget != spinner { setIndicatorWidget(spinner) }
        gtk_spinner_start(kf_gtk_spinner(spinner))
        isIndicatorVisible = true
    }

    /// Stops and hides the built-in spinner; it stays in the indicator slot.
    public func stopSpinner() {
        gtk_spinner_stop(kf_gtk_spinner(spinner))
        if indicatorWidget == spinner { isIndicatorVisible = false }
    }

    /// True while the built-in spinner is in the slot, shown and spinning.
    public var isSpinnerAnimating: Bool {
        indicatorWidget == spinner && isIndicatorVisible && gtk_spinner_get_spinning(kf_gtk_spinner(spinner)) != 0
    }

    /// Shows `image` (typically an animated GIF) in the indicator slot at its own size and plays it.
    ///
    /// - Parameter size: the indicator's size in pixels; the image's size when `nil`.
    public func startImageIndicator(_ image: KFCrossPlatformImage, size: (width: Int, height: Int)? = nil) {
        let player = imageIndicator ?? AnimatedImageView()
        player.contentMode = .aspectFit
        player.image = image
        let width = size?.width ?? image.pixelWidth
        let height = size?.height ?? image.pixelHeight
        gtk_widget_set_size_request(player.widget, Int32(clamping: width), Int32(clamping: height))
        if indicatorWidget != player.widget {
            setIndicatorWidget(player.widget)
            imageIndicator = player
        }
        isIndicatorVisible = true
        player.startAnimating()
    }

    /// The view playing the image indicator, while one is in the slot.
    public var imageIndicatorView: AnimatedImageView? { imageIndicator }

    /// Stops and hides the image indicator; it stays in the indicator slot.
    public func stopImageIndicator() {
        guard let imageIndicator, indicatorWidget == imageIndicator.widget else { return }
        imageIndicator.stopAnimating()
        isIndicatorVisible = false
    }
}
