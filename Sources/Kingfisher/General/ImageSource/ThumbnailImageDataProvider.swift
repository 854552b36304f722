import Foundation

/// Supplies a small version of the image at `url`, a file or an `http`/`https` address: the
/// image is downsampled while it decodes so that its longest side is at most ``maxPixelSize``
/// pixels, then encoded again in its own format.
///
/// Only the first frame of an animation is kept, EXIF orientation is applied, and an image already
/// that small keeps its size (never enlarged). A JPEG decodes at a reduced DCT scale and a WebP
/// scales while decoding, so a large photo never exists at full size in memory. A remote image is
/// downloaded by ``ImageDownloader/default``.
///
/// The cache key defaults to Kingfisher's: `<absolute URL>_thumb_<maxPixelSize>_<alwaysCreateThumbnail>`.
public struct ThumbnailImageDataProvider: ImageDataProvider {
    /// Why no thumbnail was made.
    public enum ThumbnailImageDataProviderError: Error {
        /// The bytes could not be read (a missing file, a URL that is neither a file nor `http(s)`)
        /// or are not an image format the library knows.
        case invalidImageSource
        /// The image did not decode, or ``ThumbnailImageDataProvider/maxPixelSize`` is under one
        /// pixel or not finite.
        case invalidThumbnail
        /// The image's format can be read but not written here (HEIC), so the thumbnail cannot be
        /// written in it.
        case writeDataError
        /// Encoding the thumbnail failed.
        case finalizeDataError
    }

    /// Where the image is: a file URL, or an `http` or `https` URL.
    public let url: URL
    /// The most pixels the thumbnail's longest side may have.
    public var maxPixelSize: CGFloat
    /// Kingfisher's choice between a thumbnail made from the image and one embedded in the file.
    ///
    /// Embedded thumbnails are not read here, so the thumbnail is always made from the image,
    /// whatever this says; it takes part in the default cache key, as in Kingfisher.
    public var alwaysCreateThumbnail: Bool
    /// The key the thumbnail is cached under.
    public var cacheKey: String

    /// A provider of the thumbnail of `url` whose longest side is at most `maxPixelSize` pixels.
    public init(url: URL, maxPixelSize: CGFloat, alwaysCreateThumbnail: Bool = true, cacheKey: String? = nil) {
        self.url = url
        self.maxPixelSize = maxPixelSize
        self.alwaysCreateThumbnail = alwaysCreateThumbnail
        self.cacheKey = cacheKey ?? "\(url.absoluteString)_thumb_\(maxPixelSize)_\(alwaysCreateThumbnail)"
    }

    /// The source URL.
    public var contentURL: URL? { url }

    /// Makes the thumbnail on a global queue and reports its encoded bytes, or a
    /// ``ThumbnailImageDataProviderError`` (a ``KingfisherError`` when a download fails).
    public func data(handler: @escaping @Sendable (Result<Data, any Error>) -> Void) {
        let provider = self
        Task.detached(priority: .userInitiated) {
            do { handler(.success(try await provider.data())) } catch { handler(.failure(error)) }
        }
    }

    /// The thumbnail's encoded bytes; throws as ``data(handler:)`` reports.
    public func data() async throws -> Data {
        let source = try await sourceBytes()
        return try Self.thumbnail(of: source, maxPixelSize: maxPixelSize)
    }

    /// The bytes at ``url``.
    private func sourceBytes() async throws -> Data {
        if url.isFileURL {
            do {
                return try LocalFileImageDataProvider.read(url, isCancelled: { Task.isCancelled })
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ThumbnailImageDataProviderError.invalidImageSource
            }
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ThumbnailImageDataProviderError.invalidImageSource
        }
        let result = try await ImageDownloader.default.downloadImage(
            with: url, options: [.processor(BytesOnlyProcessor())])
        return result.originalData
    }

    /// `data` decoded downsampled to `maxPixelSize` and encoded in its own format.
    static func thumbnail(of data: Data, maxPixelSize: CGFloat) throws -> Data {
        guard let header = try? ImageHeader(data: data), header.format != .unknown else {
            throw ThumbnailImageDataProviderError.invalidImageSource
        }
        guard header.format != .HEIC else {
            throw ThumbnailImageDataProviderError.writeDataError
        }
        let side = CGSize(width: maxPixelSize, height: maxPixelSize)
        let options = ImageCreatingOptions(onlyFirstFrame: true)
        guard let image = KingfisherWrapper.downsampledImage(data: data, to: side, options: options) else {
            throw ThumbnailImageDataProviderError.invalidThumbnail
        }
        do {
            return try image.encoded(as: header.format)
        } catch {
            throw ThumbnailImageDataProviderError.finalizeDataError
        }
    }
}

/// Lets a download finish without decoding: the thumbnail is made from the original bytes.
private struct BytesOnlyProcessor: ImageProcessor {
    let identifier = "com.onevcat.Kingfisher.ThumbnailImageDataProvider.bytes"

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        ImageFrame(width: 1, height: 1, pixels: [0, 0, 0, 0]).map { KFCrossPlatformImage(frame: $0) }
    }
}
