import Foundation

/// The sources an image server may fetch: host names and URL prefixes as `kf serve --allow-host`
/// writes them, and thumbor's and imgproxy's `ALLOWED_SOURCES` patterns as their operators write them.
///
/// A `kf serve` entry with `://` is a URL prefix and matches URLs that start with it (scheme and
/// host compared without case; a prefix naming no path gets a `/`). Any other entry is a host name
/// matched without case; `*.example.com` matches every subdomain of `example.com` but not
/// `example.com` itself. See ``SourceRule`` for thumbor's and imgproxy's forms. Only http and https
/// URLs are ever allowed. An empty list allows nothing.
public struct SourceAllowList: Sendable, Hashable {
    /// The `kf serve` entries as given (host names and URL prefixes).
    public let entries: [String]
    /// Every rule, `kf serve` entries first.
    public let rules: [SourceRule]
    /// The settings the rules came from, for refusals (`kf serve --allow-host`, `IMGPROXY_ALLOWED_SOURCES`).
    public let settings: [String]

    private let hosts: Set<String>
    private let wildcardSuffixes: [String]
    private let prefixes: [String]
    private let patterns: [CompiledSourcePattern]

    /// A list of host names and URL prefixes; empty entries are ignored.
    public init(_ entries: [String]) {
        self.init(rules: entries.map { .kf($0) }, settings: ["kf serve --allow-host"])
    }

    /// A list of `rules`, which came from `settings` (named in refusals).
    ///
    /// A thumbor regular expression that does not compile matches nothing; check it first with
    /// ``SourceRule/validationError``.
    public init(rules: [SourceRule], settings: [String]) {
        var kept: [SourceRule] = []
        var entries: [String] = []
        var hosts = Set<String>()
        var wildcards: [String] = []
        var prefixes: [String] = []
        var patterns: [CompiledSourcePattern] = []
        for rule in rules {
            switch rule {
            case .kf(let raw):
                let entry = raw.trimmingCharacters(in: .whitespaces)
                guard !entry.isEmpty else { continue }
                kept.append(.kf(entry))
                entries.append(entry)
                if entry.contains("://") {
                    prefixes.append(Self.normalizedPrefix(Self.withPath(entry)))
                } else if entry.hasPrefix("*.") {
                    wildcards.append(String(entry.dropFirst(1)).lowercased())
                } else {
                    hosts.insert(entry.lowercased())
                }
            case .thumborHost, .thumborURLPattern, .imgproxyPattern:
                kept.append(rule)
                patterns.append(CompiledSourcePattern(rule))
            }
        }
        self.entries = entries
        self.rules = kept
        self.settings = settings
        self.hosts = hosts
        self.wildcardSuffixes = wildcards
        self.prefixes = prefixes
        self.patterns = patterns
    }

    /// Whether `url` is an http(s) URL this list allows.
    public func allows(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty
        else { return false }
        if hosts.contains(host) || wildcardSuffixes.contains(where: { host.hasSuffix($0) }) { return true }
        let text = Self.normalizedPrefix(url.absoluteString)
        if prefixes.contains(where: { text.hasPrefix($0) }) { return true }
        return patterns.contains { $0.matches(url: url.absoluteString, host: host) }
    }

    /// The settings that would allow a refused source, for its message: `kf serve --allow-host`, or
    /// the imported settings the list came from and then the flag.
    public var refusalHint: String {
        (settings + (settings.contains { $0.contains("--allow-host") } ? [] : ["kf serve --allow-host"])).joined(separator: ", or ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rules == rhs.rules && lhs.settings == rhs.settings }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rules)
        hasher.combine(settings)
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

/// One entry of a ``SourceAllowList``, in the syntax of the server it was written for.
public enum SourceRule: Sendable, Hashable {
    /// `kf serve --allow-host`: a host name, `*.example.com`, or a URL prefix with `://`.
    case kf(String)
    /// thumbor's `ALLOWED_SOURCES` string: the whole host name, exactly (without case), or, when the
    /// string holds a regular-expression character (`\ ^ $ * + ? { } [ ] ( ) |`), a regular expression
    /// that must match the whole host name, as thumbor's HTTP loader reads it.
    case thumborHost(String)
    /// thumbor's `ALLOWED_SOURCES` entry written `re.compile('…')`: a regular expression matched at
    /// the start of the source URL (Python's `re.match`).
    case thumborURLPattern(String)
    /// imgproxy's `IMGPROXY_ALLOWED_SOURCES` entry: a prefix of the source URL in which `*` stands
    /// for any run of characters other than `/`.
    case imgproxyPattern(String)

    /// Why the rule cannot be used (a regular expression that does not compile), or `nil`.
    public var validationError: String? {
        switch self {
        case .kf, .imgproxyPattern: return nil
        case .thumborHost(let text):
            guard CompiledSourcePattern.isLegacyRegex(text) else { return nil }
            return (try? NSRegularExpression(pattern: "^(?:\(text))$")) == nil ? "not a regular expression: \(text)" : nil
        case .thumborURLPattern(let text):
            return (try? NSRegularExpression(pattern: text)) == nil ? "not a regular expression: \(text)" : nil
        }
    }
}

/// A thumbor or imgproxy rule, ready to match.
struct CompiledSourcePattern: Sendable {
    let rule: SourceRule
    /// The regular expression of a thumbor rule (`nil` for the others, or when it does not compile).
    private let expression: NSRegularExpression?
    /// Whether the expression is matched against the host (else against the URL).
    private let onHost: Bool

    init(_ rule: SourceRule) {
        self.rule = rule
        switch rule {
        case .thumborHost(let text) where Self.isLegacyRegex(text):
            expression = try? NSRegularExpression(pattern: "^(?:\(text))$", options: [.caseInsensitive])
            onHost = true
        case .thumborURLPattern(let text):
            expression = try? NSRegularExpression(pattern: text)
            onHost = false
        default:
            expression = nil
            onHost = true
        }
    }

    /// Whether thumbor reads `text` as a regular expression rather than a host name.
    static func isLegacyRegex(_ text: String) -> Bool {
        text.contains { "\\^$*+?{}[]()|".contains($0) }
    }

    func matches(url: String, host: String) -> Bool {
        switch rule {
        case .kf: return false
        case .thumborHost(let text) where expression == nil:
            return !Self.isLegacyRegex(text) && text.lowercased() == host
        case .imgproxyPattern(let pattern):
            return Self.wildcardPrefix(pattern, matches: url)
        case .thumborHost, .thumborURLPattern:
            guard let expression else { return false }
            let subject = onHost ? host : url
            return expression.firstMatch(in: subject, options: [.anchored], range: NSRange(subject.startIndex..., in: subject)) != nil
        }
    }

    /// Whether `text` starts with `pattern`, each `*` of which matches any run of characters but `/`.
    static func wildcardPrefix(_ pattern: String, matches text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
        let subject = Array(text.utf8)
        func match(_ part: Int, at index: Int) -> Bool {
            let literal = parts[part]
            guard subject.count - index >= literal.count, Array(subject[index..<index + literal.count]) == literal else { return false }
            var position = index + literal.count
            guard part + 1 < parts.count else { return true }
            // The star: try every run of non-slash characters, shortest first.
            while true {
                if match(part + 1, at: position) { return true }
                guard position < subject.count, subject[position] != UInt8(ascii: "/") else { return false }
                position += 1
            }
        }
        return match(0, at: 0)
    }
}
