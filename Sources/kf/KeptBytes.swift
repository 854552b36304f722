import Foundation
import Kingfisher

/// How `kf fetch` and `kf prefetch` store an image retrieved without `--processor`.
///
/// By default the bytes are kept as they were downloaded (or read), after a check of their header
/// alone: the cache is warmed with the file the server sent, not a re-encoding of its pixels.
/// `--re-encode` keeps Kingfisher's default instead: the image is decoded and written again in its
/// format by ``DefaultCacheSerializer`` (JPEG at quality 1).
enum Storage {
    /// The downloaded bytes, checked by their header (the default).
    case original
    /// The decoded image re-encoded in its format (`--re-encode`).
    case reencoded

    /// The storage for `chain` with or without `--re-encode`: a processed image is always encoded,
    /// so only the empty chain keeps its bytes.
    init(chain: any ImageProcessor, reencode: Bool) {
        self = chain.identifier.isEmpty && !reencode ? .original : .reencoded
    }

    /// The options that make the manager store this way, for a retrieval with `chain`.
    ///
    /// For ``original``: the header check as the processor (its identifier is the default
    /// processor's, so the cache key is the same), ``OriginalBytesSerializer``, and nothing kept in
    /// memory (the images the check returns are stand-ins, not pixels).
    func options(chain: any ImageProcessor) -> KingfisherOptionsInfo {
        switch self {
        case .original:
            return [.processor(HeaderCheck()), .cacheSerializer(OriginalBytesSerializer()), .memoryCacheExpiration(.expired)]
        case .reencoded:
            return [.processor(chain)]
        }
    }
}

/// The processor `kf` uses to accept downloaded bytes as an image without decoding them.
///
/// For data it reads the header (format, size, frames) and returns a 1×1 stand-in when it is a
/// PNG, JPEG, GIF or WebP header, `nil` otherwise; an image is passed through. The stand-in is
/// never shown or written: callers take the size and format from the bytes' header. Its identifier
/// is empty, like ``DefaultImageProcessor``'s, so its results are cached under the same key.
struct HeaderCheck: ImageProcessor {
    /// `""`: the key of an unprocessed image.
    let identifier = ""

    /// A stand-in when `item` is data with a readable image header; the image itself for an image.
    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch item {
        case .image(let image):
            return image
        case .data(let data):
            return Self.standIn(for: data)
        }
    }

    /// The stand-in when `data` has a readable image header, else `nil`.
    static func standIn(for data: Data) -> KFCrossPlatformImage? {
        guard (try? ImageHeader(data: data)) != nil else { return nil }
        return standIn
    }

    /// One transparent pixel.
    private static let standIn: KFCrossPlatformImage? = ImageFrame(width: 1, height: 1, pixels: [0, 0, 0, 0])
        .map { KFCrossPlatformImage(frame: $0) }
}

/// The serializer that stores the original bytes as they are and reads entries by their header.
///
/// Like ``DefaultCacheSerializer`` with `preferCacheOriginalData`, except that with no original it
/// stores nothing rather than encode the image (which, under ``HeaderCheck``, is a stand-in), and
/// that reading gives the header check's stand-in instead of decoding the entry.
struct OriginalBytesSerializer: CacheSerializer {
    /// The original bytes; `nil` when there are none.
    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        original
    }

    /// The stand-in of ``HeaderCheck`` when `data` has a readable image header, else `nil`.
    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        HeaderCheck.standIn(for: data)
    }

    /// True: the bytes are stored as they came.
    var originalDataUsed: Bool { true }
}

/// The serializer `kf fetch` uses for a processed image: the image encoded in its original's
/// format, also when the original came from the cache rather than the network.
///
/// ``DefaultCacheSerializer`` knows the original's format only from the bytes it is handed; when
/// the manager processes an original it found in the cache it hands none, and the processed image
/// would be stored as PNG. `fallback` is the format of that cached original.
struct OriginalFormatSerializer: CacheSerializer {
    /// The format when there are no original bytes.
    let fallback: ImageFormat

    /// The image encoded in the original's format (`fallback` without original bytes, PNG when
    /// unknown; a HEIC original gives JPEG, or PNG with transparency, as ``DefaultCacheSerializer``
    /// writes it); an animation in a format other than GIF or WebP is written as GIF, keeping its frames.
    func data(with image: KFCrossPlatformImage, original: Data?) -> Data? {
        var format = original.map { ImageFormat(data: $0) } ?? fallback
        if format == .HEIC { format = image.isOpaque ? .JPEG : .PNG }
        if image.isAnimated, format != .GIF, format != .WebP { format = .GIF }
        return image.kf.data(format: format)
    }

    /// The image decoded with the options' decoding settings; `nil` when `data` is not one.
    func image(with data: Data, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        KingfisherWrapper<KFCrossPlatformImage>.image(data: data, options: options.imageCreatingOptions)
    }
}
