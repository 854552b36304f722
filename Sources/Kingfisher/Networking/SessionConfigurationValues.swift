import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the downloader's transport takes from a `URLSessionConfiguration`, read once when the
/// configuration is set (as URLSession copies its configuration when it is made).
struct SessionConfigurationValues: Sendable {
    /// A proxy server.
    struct Proxy: Sendable, Equatable {
        let host: String
        let port: Int
    }

    let requestTimeout: TimeInterval
    let resourceTimeout: TimeInterval
    let additionalHeaders: [(name: String, value: String)]
    let maxConnectionsPerHost: Int
    let httpProxy: Proxy?
    let httpsProxy: Proxy?
    let cookies: CookieHandling?
    /// The configuration itself, a copy nobody changes: the getter of
    /// ``ImageDownloader/sessionConfiguration`` hands out copies of it.
    let configuration: FrozenConfiguration

    init(_ configuration: URLSessionConfiguration) {
        let original = configuration
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        self.configuration = FrozenConfiguration(copy)
        requestTimeout = Self.positive(original.timeoutIntervalForRequest, or: 60)
        resourceTimeout = Self.positive(original.timeoutIntervalForResource, or: 604_800)
        var headers: [(name: String, value: String)] = []
        for (key, value) in original.httpAdditionalHeaders ?? [:] {
            guard let name = key.base as? String ?? (key.base as? CustomStringConvertible)?.description else { continue }
            headers.append((name, (value as? String) ?? String(describing: value)))
        }
        additionalHeaders = headers.sorted { $0.name < $1.name }
        maxConnectionsPerHost = max(1, original.httpMaximumConnectionsPerHost)
        let proxies = original.connectionProxyDictionary ?? [:]
        httpProxy = Self.proxy(in: proxies, prefix: "HTTP")
        httpsProxy = Self.proxy(in: proxies, prefix: "HTTPS")
        if original.httpShouldSetCookies, original.httpCookieAcceptPolicy != .never, let storage = original.httpCookieStorage {
            cookies = CookieHandling(storage: storage, policy: original.httpCookieAcceptPolicy)
        } else {
            cookies = nil
        }
    }

    /// The proxy under `prefix` (`HTTP` or `HTTPS`) of a `connectionProxyDictionary`: the keys
    /// `<prefix>Enable`, `<prefix>Proxy` and `<prefix>Port`, the values of Darwin's
    /// `kCFNetworkProxiesHTTP…` and `kCFNetworkProxiesHTTPS…` constants.
    static func proxy(in dictionary: [AnyHashable: Any], prefix: String) -> Proxy? {
        func value(_ suffix: String) -> Any? { dictionary[AnyHashable(prefix + suffix)] }
        if let enable = value("Enable"), !truthy(enable) { return nil }
        guard let host = value("Proxy") as? String, !host.isEmpty else { return nil }
        let port = value("Port").flatMap(integer) ?? (prefix == "HTTPS" ? 443 : 80)
        guard (1...65_535).contains(port) else { return nil }
        return Proxy(host: host, port: port)
    }

    private static func truthy(_ value: Any) -> Bool {
        if let flag = value as? Bool { return flag }
        return integer(value).map { $0 != 0 } ?? false
    }

    private static func integer(_ value: Any) -> Int? {
        if let number = value as? Int { return number }
        if let number = value as? NSNumber { return number.intValue }
        if let text = value as? String { return Int(text) }
        return nil
    }

    private static func positive(_ value: TimeInterval, or fallback: TimeInterval) -> TimeInterval {
        value.isFinite && value > 0 ? value : fallback
    }
}

/// A `URLSessionConfiguration` that is never changed after it was copied in, so that it can be
/// shared between threads.
///
/// `@unchecked Sendable`: no lock is needed because nothing writes to `value` (readers get copies).
final class FrozenConfiguration: @unchecked Sendable {
    private let value: URLSessionConfiguration

    init(_ value: URLSessionConfiguration) { self.value = value }

    /// A copy the caller may change.
    func copy() -> URLSessionConfiguration {
        (value.copy() as? URLSessionConfiguration) ?? value
    }
}

/// Stores the cookies of responses and sends them back, as the configuration says.
///
/// `@unchecked Sendable`: `HTTPCookieStorage` guards its cookies with its own lock.
struct CookieHandling: @unchecked Sendable {
    let storage: HTTPCookieStorage
    let policy: HTTPCookie.AcceptPolicy

    /// The `Cookie` header for `request`, unless the request has its own or does not handle cookies.
    func header(for request: URLRequest) -> String? {
        guard request.httpShouldHandleCookies, request.value(forHTTPHeaderField: "Cookie") == nil,
              let url = request.url, let cookies = storage.cookies(for: url), !cookies.isEmpty else { return nil }
        return HTTPCookie.requestHeaderFields(with: cookies)["Cookie"]
    }

    /// Stores the cookies of `setCookies`, the `Set-Cookie` values of a response to `request`.
    func store(setCookies: [String], request: URLRequest) {
        guard !setCookies.isEmpty, request.httpShouldHandleCookies, let url = request.url else { return }
        // One header at a time: a cookie's `Expires` date has a comma, so joined values are ambiguous.
        var cookies = setCookies.flatMap { HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": $0], for: url) }
        if policy == .onlyFromMainDocumentDomain {
            let main = (request.mainDocumentURL ?? url).host?.lowercased() ?? ""
            cookies = cookies.filter { cookie in
                let domain = cookie.domain.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
                return main == domain || main.hasSuffix("." + domain)
            }
        }
        guard !cookies.isEmpty else { return }
        storage.setCookies(cookies, for: url, mainDocumentURL: request.mainDocumentURL ?? url)
    }
}
