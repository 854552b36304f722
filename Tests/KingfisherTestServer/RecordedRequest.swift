import Foundation

/// A request as the ``TestHTTPServer`` received it, recorded once its headers were complete.
public struct RecordedRequest: Sendable {
    /// The method, for example `"GET"` or `"HEAD"`.
    public let method: String
    /// The request target exactly as sent, query string included.
    public let uri: String
    /// Every header in the order received; names keep the client's spelling.
    public let headers: [(String, String)]
    /// The protocol it arrived on: `"HTTP/1.1"`, `"HTTP/1.0"` or `"HTTP/2"`.
    public let httpVersion: String

    init(method: String, uri: String, headers: [(String, String)], httpVersion: String) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.httpVersion = httpVersion
    }

    /// The first value of header `name`, compared case-insensitively; `nil` when absent.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }

    /// The path part of ``uri``: everything before `?`, or the path of an absolute-form target.
    var path: String {
        Self.path(of: uri)
    }

    /// The route key for a request target: the query string (and fragment) stripped.
    static func path(of uri: String) -> String {
        if !uri.hasPrefix("/"), let components = URLComponents(string: uri), components.host != nil {
            return components.path.isEmpty ? "/" : components.path
        }
        let end = uri.firstIndex { $0 == "?" || $0 == "#" } ?? uri.endIndex
        return String(uri[..<end])
    }
}
