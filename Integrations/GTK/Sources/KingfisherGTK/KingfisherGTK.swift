@_exported import CGTK
import Kingfisher

/// A pointer to a GTK widget, as GTK's own API passes widgets around.
///
/// KingfisherGTK re-exports the GTK 4 C API (module `CGTK`), so an app that imports it can build
/// windows and containers and put an ``ImageView``'s ``ImageView/widget`` into them.
public typealias GtkWidgetPointer = UnsafeMutablePointer<GtkWidget>
