import Foundation

/// The sources an image server may fetch: host names and URL prefixes.
///
/// An entry with `://` is a URL prefix and matches URLs that start with it (scheme and host
/// compared without case; a prefix naming no path gets a `/`). Any other entry is a host name matched without case; `*.example.com`
/// matches every subdomain of `example.com` but not `example.com` itself. Only http and https URLs
/// are ever allowed. An empty list allows nothing.
public struct SourceAllowList: Sendable, Hashable {
    /// The entries as given.
    public let entries: [String]

    private let hosts: Set<String>
    private let wildcardSuffixes: [String]
    private let prefixes: [String]

    /// A list of host names and URL prefixes; empty entries are ignored.
    public init(_ entries: [String]) {
        let trimmed = entries.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        self.entries = trimmed
        var hosts = Set<String>()
        var wildcards: [String] = []
        var prefixes: [String] = []
        for entry in trimmed {
            if entry.contains("://") {
                prefixes.append(Self.normalizedPrefix(Self.withPath(entry)))
            } else if entry.hasPrefix("*.") {
                wildcards.append(String(entry.dropFirst(1)).lowercased())
            } else {
                hosts.insert(entry.lowercased())
            }
        }
        self.hosts = hosts
        self.wildcardSuffixes = wildcards
        self.prefixes = prefixes
    }

    /// Whether `url` is an http(s) URL this list allows.
    public func allows(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty
        else { return false }
        if hosts.contains(host) || wildcardSuffixes.contains(where: { host.hasSuffix($0) }) { return true }
        let text = Self.normalizedPrefix(url.absoluteString)
        return prefixes.contains { text.hasPrefix($0) }
    }

    /// `entry`, ending in `/` when it names no path, so `http://a.com` never matches `http://a.com.evil.net`.
    private static func withPath(_ entry: String) -> String {
        guard let range = entry.range(of: "://") else { return entry }
        return entry[range.upperBound...].contains("/") ? entry : entry + "/"
    }

    /// `text` with its scheme and authority lowercased, its path as given.
    private static func normalizedPrefix(_ text: String) -> String {
        guard let range = text.range(of: "://") else { return text }
        let afterScheme = text[range.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        return text[..<authorityEnd].lowercased() + afterScheme[authorityEnd...]
    }
}
