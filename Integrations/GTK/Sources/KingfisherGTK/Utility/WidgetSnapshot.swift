import Kingfisher
import KingfisherGTKShims

/// Renders a widget as GTK last drew it into a ``Kingfisher/KFCrossPlatformImage``: for pixel checks
/// and screenshots, without a compositor or a screen grab.
///
/// GTK keeps what each widget drew in its last frame; a change shows up here once a frame has been
/// drawn after it (``renderAfterNextFrame(_:limit:)`` waits for one).
/// The widget's paintable (`gtk_widget_paintable_new`) is snapshotted at the widget's size and
/// rendered to a texture by the renderer of its window (under Xvfb, `GSK_RENDERER=cairo` makes
/// that deterministic). Transparent where the widget draws nothing: the window's background is not
/// included.
@MainActor
public enum WidgetSnapshot {
    /// Asks GTK to draw `widget` again, drives GTK's loop until a frame has been drawn, and renders
    /// it; `nil` when the widget is not shown or no frame came within `limit`. For callers that drive
    /// GTK themselves (``GTKMainLoop/drive(until:limit:)``), such as tests.
    public static func renderAfterNextFrame(_ widget: GtkWidgetPointer, limit: Duration = .seconds(10)) async -> KFCrossPlatformImage? {
        let shown = await GTKMainLoop.drive(until: {
            gtk_widget_get_mapped(widget) != 0 && gtk_widget_get_width(widget) > 0
        }, limit: limit)
        guard shown else { return nil }
        let frames = FrameCount()
        // A frame's tick comes before its drawing: the second tick after the request means the
        // frame of the first one has been drawn.
        let ticker = FrameTicker(widget: widget) { _ in
            frames.value += 1
            return true
        }
        defer { ticker.stop() }
        gtk_widget_queue_draw(widget)
        guard await GTKMainLoop.drive(until: { frames.value >= 2 }, limit: limit) else { return nil }
        return render(widget)
    }

    /// The widget's pixels as last drawn, or `nil` when it is not realized in a window, has no size
    /// or has not been drawn yet.
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

@MainActor
private final class FrameCount {
    var value = 0
}
