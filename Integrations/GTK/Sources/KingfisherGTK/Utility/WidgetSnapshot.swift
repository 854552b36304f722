import Kingfisher
import KingfisherGTKShims

/// Renders a widget as it looks now into a ``Kingfisher/KFCrossPlatformImage``: for pixel checks
/// and screenshots, without a compositor or a screen grab.
///
/// The widget's paintable (`gtk_widget_paintable_new`) is snapshotted at the widget's size and
/// rendered to a texture by the renderer of its window (under Xvfb, `GSK_RENDERER=cairo` makes
/// that deterministic). Transparent where the widget draws nothing: the window's background is not
/// included.
@MainActor
public enum WidgetSnapshot {
    /// The widget's pixels, or `nil` when it is not realized in a window or has no size.
    public static func render(_ widget: GtkWidgetPointer) -> KFCrossPlatformImage? {
        let width = Int(gtk_widget_get_width(widget))
        let height = Int(gtk_widget_get_height(widget))
        guard width > 0, height > 0, gtk_widget_get_realized(widget) != 0,
              let native = gtk_widget_get_native(widget),
              let renderer = gtk_native_get_renderer(native)
        else { return nil }
        guard let paintable = gtk_widget_paintable_new(widget) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(paintable)) }
        guard let snapshot = gtk_snapshot_new() else { return nil }
        gdk_paintable_snapshot(paintable, kf_gdk_snapshot(UnsafeMutableRawPointer(snapshot)), Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else { return nil }
        defer { gsk_render_node_unref(node) }
        guard let texture = gsk_renderer_render_texture(renderer, node, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        let textureWidth = Int(gdk_texture_get_width(texture))
        let textureHeight = Int(gdk_texture_get_height(texture))
        // gdk_texture_download writes cairo's ARGB32: premultiplied, B G R A in memory on x86_64.
        var bgra = [UInt8](repeating: 0, count: textureWidth * textureHeight * 4)
        bgra.withUnsafeMutableBytes { buffer in
            gdk_texture_download(texture, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), gsize(textureWidth * 4))
        }
        for offset in stride(from: 0, to: bgra.count, by: 4) {
            bgra.swapAt(offset, offset + 2)
        }
        guard let frame = ImageFrame(width: textureWidth, height: textureHeight, pixels: bgra) else { return nil }
        return KFCrossPlatformImage(frame: frame)
    }
}
