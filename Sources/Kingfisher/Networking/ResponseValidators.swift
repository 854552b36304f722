import Foundation
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a response said about caching it: its validators (`ETag`, `Last-Modified`) and its
/// `Cache-Control` lifetime.
///
/// With ``KingfisherOptionsInfoItem/revalidateExpiredCache`` the manager keeps these next to the
/// disk entry, uses `max-age` as the entry's disk expiration, stores nothing on disk for
/// `no-store`, and revalidates an expired entry with `If-None-Match` / `If-Modified-Since`.
public struct ResponseValidators: Sendable, Hashable, Codable {
    /// The `ETag` header, as sent.
    public var etag: String?
    /// The `Last-Modified` header, as sent.
    public var lastModified: String?
    /// `Cache-Control: max-age` (or `s-maxage`), in seconds.
    public var maxAge: TimeInterval?
    /// `Cache-Control: no-store`.
    public var noStore: Bool

    /// Validators with the given fields.
    public init(etag: String? = nil, lastModified: String? = nil, maxAge: TimeInterval? = nil, noStore: Bool = false) {
        self.etag = etag
        self.lastModified = lastModified
        self.maxAge = maxAge
        self.noStore = noStore
    }

    /// The validators of a response's headers.
    init(headers: HTTPHeaders) {
        self.init(fields: headers.map { ($0.name, $0.value) })
    }

    /// The validators of header fields (names in any case; repeated fields are combined).
    init(fields: [(String, String)]) {
        func values(_ name: String) -> [String] {
            fields.filter { $0.0.lowercased() == name }.map(\.1)
        }
        etag = values("etag").first
        lastModified = values("last-modified").first
        var maxAge: TimeInterval?
        var noStore = false
        for value in values("cache-control").flatMap({ $0.split(separator: ",") }) {
            let directive = value.trimmingCharacters(in: .whitespaces).lowercased()
            if directive == "no-store" { noStore = true }
            for prefix in ["s-maxage=", "max-age="] where directive.hasPrefix(prefix) {
                if let seconds = TimeInterval(directive.dropFirst(prefix.count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
                   seconds.isFinite, seconds >= 0 {
                    maxAge = prefix == "s-maxage=" ? seconds : (maxAge ?? seconds)
                }
            }
        }
        self.maxAge = maxAge
        self.noStore = noStore
    }

    /// Whether a conditional request can be made: there is an `ETag` or a `Last-Modified`.
    public var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// `If-None-Match` and `If-Modified-Since` for a conditional request.
    public var conditionalHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag { headers["If-None-Match"] = etag }
        if let lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// These validators with `newer`'s fields where `newer` has them (a `304` may update them).
    func merged(with newer: ResponseValidators) -> ResponseValidators {
        ResponseValidators(
            etag: newer.etag ?? etag, lastModified: newer.lastModified ?? lastModified,
            maxAge: newer.maxAge ?? maxAge, noStore: newer.noStore)
    }

    /// The disk expiration `max-age` asks for, if it names one.
    var diskExpiration: StorageExpiration? {
        maxAge.map { .seconds($0) }
    }
}

/// Adds a conditional request's headers after the caller's own request modifier, if any.
struct ConditionalRequestModifier: AsyncImageDownloadRequestModifier {
    let wrapped: (any AsyncImageDownloadRequestModifier)?
    let validators: ResponseValidators

    func modified(for request: URLRequest) async -> URLRequest? {
        var request = request
        if let wrapped {
            guard let modified = await wrapped.modified(for: request) else { return nil }
            request = modified
        }
        for (name, value) in validators.conditionalHeaders {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    var onDownloadTaskStarted: (@Sendable (DownloadTask?) -> Void)? { wrapped?.onDownloadTaskStarted }
}
