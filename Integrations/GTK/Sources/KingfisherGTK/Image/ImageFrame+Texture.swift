import Kingfisher
import KingfisherGTKShims

/// Keeps a frame's pixel array alive for as long as GDK holds a texture over it.
///
/// Only `let` state: the array is never mutated, so its storage never moves or is copied, and GDK
/// only reads it. The `GBytes` that wraps the storage releases this owner in its destroy notify.
private final class PixelOwner {
    let pixels: [UInt8]
    init(_ pixels: [UInt8]) { self.pixels = pixels }
}

extension ImageFrame {
    /// A new GDK texture over this frame's pixels, without copying them; the caller owns the
    /// returned reference (`g_object_unref` it). `nil` only if GDK refuses the size.
    ///
    /// Kingfisher's pixels are 8-bit premultiplied RGBA with packed rows, which is GDK's
    /// `GDK_MEMORY_R8G8B8A8_PREMULTIPLIED`: the texture reads the frame's own storage, wrapped in a
    /// `GBytes` whose destroy notify releases it. (A renderer may still convert or upload the
    /// pixels when it draws them: GSK's cairo renderer keeps a BGRA surface, the GL renderer a GPU
    /// texture.)
    public func makeTexture() -> OpaquePointer? {
        makeTextureWithStorage().texture
    }

    /// A new GDK texture for drawing in `widget`: over this frame's own pixels, except under GSK's
    /// cairo renderer, which converts a texture to its B G R A surface each time it draws it; there
    /// the pixels are swizzled to `GDK_MEMORY_B8G8R8A8_PREMULTIPLIED` once, here, so each draw is a
    /// plain copy. The caller owns the returned reference.
    @MainActor public func makeTexture(for widget: GtkWidgetPointer) -> OpaquePointer? {
        guard Self.drawsWithCairo(widget) else { return makeTexture() }
        var bgra = pixels
        bgra.withUnsafeMutableBufferPointer { buffer in
            for offset in stride(from: 0, to: buffer.count, by: 4) {
                buffer.swapAt(offset, offset + 2)
            }
        }
        return Self.texture(width: width, height: height, bytesPerRow: bytesPerRow, pixels: bgra,
                            format: GDK_MEMORY_B8G8R8A8_PREMULTIPLIED).texture
    }

    /// Whether `widget`'s window draws with GSK's cairo renderer (`false` while it has no window).
    @MainActor static func drawsWithCairo(_ widget: GtkWidgetPointer) -> Bool {
        guard let native = gtk_widget_get_native(widget), let renderer = gtk_native_get_renderer(native) else {
            return false
        }
        return kf_gsk_is_cairo_renderer(UnsafeMutableRawPointer(renderer)) != 0
    }

    /// The texture and the address of the bytes it reads (for the no-copy check in the tests).
    func makeTextureWithStorage() -> (texture: OpaquePointer?, storage: UnsafeRawPointer?) {
        Self.texture(width: width, height: height, bytesPerRow: bytesPerRow, pixels: pixels,
                     format: GDK_MEMORY_R8G8B8A8_PREMULTIPLIED)
    }

    /// A texture over `pixels` in `format`, keeping the array alive for as long as GDK holds it.
    private static func texture(width: Int, height: Int, bytesPerRow: Int, pixels: [UInt8],
                                format: GdkMemoryFormat) -> (texture: OpaquePointer?, storage: UnsafeRawPointer?) {
        let owner = PixelOwner(pixels)
        // The storage address of a native array held, unmutated, by `owner`: stable for the owner's
        // lifetime, which the GBytes below extends until GDK lets go of the texture.
        let base = owner.pixels.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
        let retained = Unmanaged.passRetained(owner).toOpaque()
        let bytes = g_bytes_new_with_free_func(base, gsize(pixels.count), { owner in
            guard let owner else { return }
            Unmanaged<PixelOwner>.fromOpaque(owner).release()
        }, retained)
        let texture = gdk_memory_texture_new(Int32(width), Int32(height), format, bytes, gsize(bytesPerRow))
        g_bytes_unref(bytes)
        return (texture, base)
    }
}
