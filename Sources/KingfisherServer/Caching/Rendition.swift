import Crypto
import Foundation
import Kingfisher

/// One rendered image as it is answered: the bytes, their MIME type and their entity tag.
struct Rendition: Sendable {
    /// The encoded image.
    let bytes: Data
    /// The MIME type of `bytes`, from their magic bytes.
    let contentType: String
    /// The strong entity tag, quoted.
    let etag: String
    /// `Last-Modified`: when the rendition was stored, in whole seconds, less ``dateHeaderLag``.
    let lastModified: Date
    /// The file extension of its format (`jpg`, `webp`).
    let fileExtension: String

    /// A rendition of `bytes` for the request whose rendition key is `key`.
    ///
    /// The entity tag is a SHA-256 digest over the key (source URL, output rendering, processor
    /// identifier) and the bytes, so it changes whenever the source, the chain or the format does.
    init(bytes: Data, key: String, lastModified stored: Date = Date()) {
        self.bytes = bytes
        let format = ImageFormat(data: bytes)
        self.contentType = format.mimeType
        self.fileExtension = format == .JPEG ? "jpg" : format == .unknown ? "bin" : format.rawValue.lowercased()
        self.lastModified = Date(timeIntervalSince1970: (stored.timeIntervalSince1970 - Self.dateHeaderLag).rounded(.down))
        var hasher = SHA256()
        hasher.update(data: Data(key.utf8))
        hasher.update(data: Data([0]))
        hasher.update(data: bytes)
        let digest = hasher.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
        self.etag = "\"\(digest)\""
    }

    /// How far `Last-Modified` is set back from the moment a rendition was stored, in seconds.
    ///
    /// Hummingbird writes the `Date` header from a clock it refreshes once a second, which may lag
    /// the real time by a second or more; a fresh rendition's `Last-Modified` must never be later
    /// than the `Date` of the response that carries it. The offset is the same for every tier, so
    /// `If-Modified-Since` compares like with like.
    static let dateHeaderLag: TimeInterval = 2

    /// Whether an `If-None-Match` header names this rendition (or is `*`).
    func matches(ifNoneMatch header: String) -> Bool {
        HTTPValidators.ifNoneMatch(header, names: etag)
    }
}
