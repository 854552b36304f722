import HTTPTypes

/// Finds the address of the client behind trusted proxies, for the request log and nothing else.
///
/// A request whose TCP peer is not a trusted proxy is logged with the peer's address, whatever
/// its headers say. From a trusted peer, the client is read from `Forwarded: for=` (RFC 7239), or
/// when that names no usable address from `X-Forwarded-For`: walking the list from the right, the
/// first address that is not itself a trusted proxy (the leftmost one when all are). An entry that
/// is not an address (`unknown`, an obfuscated name, garbage) ends the walk with no answer, and
/// the next source is tried. Only parsed addresses are logged, written as `inet_ntop` writes them.
struct ClientAddress: Sendable {
    /// The proxies whose forwarding headers are believed.
    let trustedProxies: [AddressRange]

    /// The most entries read from the right of one header; a longer list is cut to its last ones.
    static let maxEntries = 64

    /// The client's address: from the headers when `peer` is a trusted proxy, else `peer`'s; `nil`
    /// when the peer is unknown (not an IP connection).
    func resolve(peer: [UInt8]?, headers: HTTPFields) -> String? {
        guard let peer else { return nil }
        let peerAddress = AddressRange.unmapped(peer)
        guard isTrusted(peerAddress) else { return ResolvedAddress(bytes: peerAddress).text }
        if let name = Self.forwarded, let client = client(in: Self.forwardedFor(headers[values: name])) {
            return ResolvedAddress(bytes: client).text
        }
        if let name = Self.xForwardedFor, let client = client(in: Self.xForwardedFor(headers[values: name])) {
            return ResolvedAddress(bytes: client).text
        }
        return ResolvedAddress(bytes: peerAddress).text
    }

    /// Whether `address` is one of the trusted proxies.
    func isTrusted(_ address: [UInt8]) -> Bool {
        trustedProxies.contains { $0.contains(address) }
    }

    /// The rightmost entry of `chain` that is not a trusted proxy, or the leftmost when all are;
    /// `nil` for an empty chain or when the walk meets an entry that is not an address.
    func client(in chain: [[UInt8]?]) -> [UInt8]? {
        var farthest: [UInt8]?
        for entry in chain.reversed() {
            guard let address = entry else { return nil }
            if !isTrusted(address) { return address }
            farthest = address
        }
        return farthest
    }

    /// `Forwarded` (RFC 7239).
    static let forwarded = HTTPField.Name("Forwarded")
    /// `X-Forwarded-For`, the older convention.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")

    /// The `for=` node of each element of `Forwarded` field values, in order; `nil` for an element
    /// with no `for`, or whose node is not an IP address.
    static func forwardedFor(_ values: [String]) -> [[UInt8]?] {
        var nodes: [[UInt8]?] = []
        for value in values {
            for element in ForwardedScanner.elements(of: Substring(value)) {
                let node = element.first { $0.name.lowercased() == "for" }
                nodes.append(node.flatMap { Self.address(ofNode: $0.value) })
                if nodes.count > 4 * maxEntries { nodes.removeFirst(nodes.count - maxEntries) }
            }
        }
        return Array(nodes.suffix(maxEntries))
    }

    /// The entries of `X-Forwarded-For` field values, in order; `nil` for one that is not an address.
    static func xForwardedFor(_ values: [String]) -> [[UInt8]?] {
        var entries: [[UInt8]?] = []
        for value in values {
            for entry in value.split(separator: ",", omittingEmptySubsequences: false) {
                entries.append(address(ofNode: entry.trimmingWhitespace()))
                if entries.count > 4 * maxEntries { entries.removeFirst(entries.count - maxEntries) }
            }
        }
        return Array(entries.suffix(maxEntries))
    }

    /// The address of a node as proxies write it: `192.0.2.1`, `192.0.2.1:8080`, `[2001:db8::1]`,
    /// `[2001:db8::1]:8080`, or a bare IPv6 address; `nil` for anything else.
    static func address(ofNode node: Substring) -> [UInt8]? {
        if node.hasPrefix("[") {
            guard let close = node.firstIndex(of: "]") else { return nil }
            let rest = node[node.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && isPort(rest.dropFirst())) else { return nil }
            let inside = node[node.index(after: node.startIndex)..<close]
            guard inside.contains(":") else { return nil }
            return AddressRange.address(in: inside)
        }
        let colons = node.reduce(0) { $0 + ($1 == ":" ? 1 : 0) }
        if colons == 1, let colon = node.firstIndex(of: ":") {
            guard isPort(node[node.index(after: colon)...]) else { return nil }
            return AddressRange.address(in: node[..<colon])
        }
        return AddressRange.address(in: node)
    }

    /// Whether `text` is a port number (RFC 7239 also allows an obfuscated `_port`).
    private static func isPort(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.count <= 32 else { return false }
        if text.hasPrefix("_") { return text.dropFirst().allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") } }
        return text.count <= 5 && text.allSatisfy { $0.isASCII && $0.isNumber } && (Int(text) ?? .max) <= 65_535
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
