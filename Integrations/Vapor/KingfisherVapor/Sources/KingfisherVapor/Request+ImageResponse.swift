import Crypto
import Foundation
import Kingfisher
import KingfisherServer
import Vapor

extension Request.Kingfisher {
    /// A response carrying `result`'s image, or `304 Not Modified` when the request's
    /// `If-None-Match` names its entity tag.
    ///
    /// The image is encoded as `format`. `nil` keeps the source's format when it is PNG, JPEG,
    /// WebP or GIF and sends PNG otherwise: for a download, the format of the downloaded bytes; for
    /// a cache hit (whose original bytes are not at hand), the format the source URL's extension
    /// names. The headers are those of the form that takes an image.
    public func response(
        for result: RetrieveImageResult,
        format: ImageFormat? = nil,
        maxAge: Int = 86_400,
        lastModified: Date = Date()
    ) throws -> Response {
        let sourceFormat: ImageFormat
        if result.cacheType == .none {
            sourceFormat = result.data()?.kf.imageFormat ?? .unknown
        } else {
            sourceFormat = result.source.url.flatMap { ImageFormat(fileExtension: $0.pathExtension) } ?? .unknown
        }
        return try response(for: result.image, format: format ?? sourceFormat, maxAge: maxAge, lastModified: lastModified)
    }

    /// A response carrying `image` encoded as `format` (PNG, JPEG, WebP or GIF; any other
    /// format is sent as PNG), or `304 Not Modified` when the request's `If-None-Match` names
    /// its entity tag.
    ///
    /// Headers: `Content-Type` of the format, `ETag` (the SHA-256 of the bytes, so equal bytes
    /// have equal tags across servers), `Last-Modified` (`lastModified`, by default the time of
    /// the answer: this module does not know when the origin changed the image) and
    /// `Cache-Control: public, max-age=<maxAge>`. A 304 carries the same validators and no body.
    /// - Throws: `Abort(.internalServerError)` when the image cannot be encoded.
    public func response(
        for image: KFCrossPlatformImage,
        format: ImageFormat = .PNG,
        maxAge: Int = 86_400,
        lastModified: Date = Date()
    ) throws -> Response {
        let format = Self.answerable(format)
        let bytes: Data
        do {
            bytes = try image.encoded(as: format)
        } catch {
            throw Abort(.internalServerError, reason: "the image could not be encoded as \(format)")
        }
        let etag = "\"" + SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() + "\""
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .eTag, value: etag)
        headers.replaceOrAdd(name: .lastModified, value: HTTPValidators.httpDate(lastModified))
        headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=\(max(0, maxAge))")
        if request.headers[.ifNoneMatch].contains(where: { HTTPValidators.ifNoneMatch($0, names: etag) }) {
            return Response(status: .notModified, headers: headers)
        }
        headers.replaceOrAdd(name: .contentType, value: HTTPValidators.mediaType(of: format))
        return Response(status: .ok, headers: headers, body: .init(data: bytes))
    }

    /// `format` when the response can carry it, else PNG.
    static func answerable(_ format: ImageFormat) -> ImageFormat {
        switch format {
        case .PNG, .JPEG, .WebP, .GIF: return format
        default: return .PNG
        }
    }
}
