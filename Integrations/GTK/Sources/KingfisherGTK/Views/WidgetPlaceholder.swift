import Kingfisher
import KingfisherGTKShims

/// Any GTK widget as a `kf.setImage` placeholder (a label, a box, a shimmer): it fills an
/// ``ImageView`` over its image while the image loads, and is taken off when the image, the
/// failure image or the next placeholder replaces it.
///
/// On a target that is not an ``ImageView`` it shows nothing.
@MainActor
public final class WidgetPlaceholder: Placeholder {
    private let box: GTKWidgetBox

    /// The widget shown.
    public var widget: GtkWidgetPointer { box.widget }

    /// A placeholder showing `widget` (the placeholder holds a reference to it).
    public init(_ widget: GtkWidgetPointer) {
        box = GTKWidgetBox(widget)
    }

    /// Puts the widget over `target`'s image.
    public func add(to target: any KingfisherImageSettable) {
        (target as? ImageView)?.setPlaceholderWidget(widget)
    }

    /// Takes the widget off `target`, if it is still the one shown there.
    public func remove(from target: any KingfisherImageSettable) {
        guard let view = target as? ImageView, view.placeholderWidget == widget else { return }
        view.setPlaceholderWidget(nil)
    }
}
