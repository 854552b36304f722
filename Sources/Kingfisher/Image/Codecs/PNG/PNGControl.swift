import CLibPNG
import Foundation

/// Runs libpng's simplified API on a `png_image` that stays at one address from start to end.
///
/// libpng keeps a pointer to the `png_image` (its error handler writes `message` through it) from
/// `png_image_begin_read_*` until `png_image_finish_read`, so the control block lives on the heap
/// rather than in a Swift `var`, whose address is only fixed for the length of one call.
enum PNGControl {
    /// Calls `body` with a zeroed `png_image` of the current version, then frees whatever libpng
    /// still holds in it and the block itself, on every path.
    static func with<Result>(_ body: (UnsafeMutablePointer<png_image>) throws -> Result) rethrows -> Result {
        let image = UnsafeMutablePointer<png_image>.allocate(capacity: 1)
        image.initialize(to: png_image())
        image.pointee.version = kf_png_image_version
        defer {
            // Safe after success, failure or a finished read: libpng clears `opaque` when it frees.
            png_image_free(image)
            image.deinitialize(count: 1)
            image.deallocate()
        }
        return try body(image)
    }

    /// The message libpng left in `image`, read only within the 64 bytes of the field even when
    /// it has no terminating NUL; a fixed text when libpng left none.
    static func message(of image: UnsafePointer<png_image>) -> String {
        let text = withUnsafeBytes(of: image.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng gave no reason" : text
    }

    /// libpng's warning that the image data inflates to more than the image's rows ("Too much image
    /// data") or goes on after the zlib stream ends ("Extra compressed data"), if that is the
    /// warning it kept (the simplified API keeps the first).
    static func extraDataWarning(of image: UnsafePointer<png_image>) -> String? {
        guard image.pointee.warning_or_error & 0x03 != 0 else { return nil }
        let text = message(of: image)
        return text.contains("Too much image data") || text.contains("Extra compressed data") ? text : nil
    }

    /// True when libpng recorded an error (not just a warning) in `image`.
    static func failed(_ image: UnsafePointer<png_image>) -> Bool {
        image.pointee.warning_or_error & 0x03 > kf_png_image_warning
    }
}
