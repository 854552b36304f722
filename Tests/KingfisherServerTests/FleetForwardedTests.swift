import HTTPTypes
import KingfisherTestSupport
import Testing
@testable import KingfisherServer

@Suite("client address behind trusted proxies")
struct FleetForwardedTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let peer: String
        var forwarded: [String] = []
        var xForwardedFor: [String] = []
        let client: String?
        var testDescription: String { "peer \(peer), Forwarded \(forwarded), X-Forwarded-For \(xForwardedFor)" }
    }

    /// Trusted: 10.0.0.0/8, the loopback ::1 and 127.0.0.1, and fd00::/8.
    static let resolver = ClientAddress(trustedProxies: ["10.0.0.0/8", "::1", "127.0.0.1", "fd00::/8"].compactMap(AddressRange.init))

    static let cases: [Case] = [
        // An untrusted peer is logged as itself, whatever it claims.
        Case(peer: "198.51.100.9", xForwardedFor: ["203.0.113.7"], client: "198.51.100.9"),
        Case(peer: "198.51.100.9", forwarded: ["for=203.0.113.7"], client: "198.51.100.9"),
        Case(peer: "11.0.0.1", xForwardedFor: ["203.0.113.7"], client: "11.0.0.1"),
        // A trusted peer with no header.
        Case(peer: "10.0.0.1", client: "10.0.0.1"),
        // X-Forwarded-For: the rightmost address that is not a trusted proxy.
        Case(peer: "10.0.0.1", xForwardedFor: ["203.0.113.7"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", xForwardedFor: ["203.0.113.7, 10.0.0.2"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", xForwardedFor: ["6.6.6.6, 203.0.113.7 ,10.9.9.9"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", xForwardedFor: ["6.6.6.6", "203.0.113.7"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", xForwardedFor: ["10.0.0.3, 10.0.0.2"], client: "10.0.0.3"),
        Case(peer: "10.0.0.1", xForwardedFor: ["203.0.113.7:5555"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", xForwardedFor: ["[2001:db8::1]:80"], client: "2001:db8::1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["2001:DB8:0:0::1"], client: "2001:db8::1"),
        // Forwarded (RFC 7239): quoted, bracketed IPv6, ports, any case, several elements and fields.
        Case(peer: "10.0.0.1", forwarded: ["for=192.0.2.60;proto=http;by=203.0.113.43"], client: "192.0.2.60"),
        Case(peer: "10.0.0.1", forwarded: [#"for="[2001:db8:cafe::17]:4711""#], client: "2001:db8:cafe::17"),
        Case(peer: "10.0.0.1", forwarded: [#"For="192.0.2.43:47011""#], client: "192.0.2.43"),
        Case(peer: "10.0.0.1", forwarded: ["for=192.0.2.43, for=198.51.100.17"], client: "198.51.100.17"),
        Case(peer: "10.0.0.1", forwarded: ["for=192.0.2.43, for=10.1.1.1"], client: "192.0.2.43"),
        Case(peer: "10.0.0.1", forwarded: ["for=192.0.2.1", "for=10.0.0.2"], client: "192.0.2.1"),
        Case(peer: "10.0.0.1", forwarded: [#"proto=https;for="192.0.2.5";host="a,b;c""#], client: "192.0.2.5"),
        Case(peer: "10.0.0.1", forwarded: [#"for = 192.0.2.8 ; by=x"#], client: "192.0.2.8"),
        Case(peer: "10.0.0.1", forwarded: [#"for="\1\9\2.0.2.9""#], client: "192.0.2.9"),
        // Forwarded wins over X-Forwarded-For; one that names no address leaves it to X-Forwarded-For.
        Case(peer: "10.0.0.1", forwarded: ["for=192.0.2.60"], xForwardedFor: ["203.0.113.7"], client: "192.0.2.60"),
        Case(peer: "10.0.0.1", forwarded: ["for=unknown"], xForwardedFor: ["203.0.113.7"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", forwarded: ["for=_hidden"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", forwarded: ["proto=https"], client: "10.0.0.1"),
        // IPv6 and IPv4-mapped peers.
        Case(peer: "::1", xForwardedFor: ["2001:db8::5"], client: "2001:db8::5"),
        Case(peer: "fd12::3", forwarded: ["for=\"[fd12::4]\", for=198.51.100.1"], client: "198.51.100.1"),
        Case(peer: "::ffff:10.0.0.1", xForwardedFor: ["203.0.113.7"], client: "203.0.113.7"),
        Case(peer: "::ffff:198.51.100.9", xForwardedFor: ["203.0.113.7"], client: "198.51.100.9"),
        Case(peer: "2001:db8::99", xForwardedFor: ["203.0.113.7"], client: "2001:db8::99"),
        // Garbage: the walk stops at an entry that is not an address, and the peer is logged.
        Case(peer: "10.0.0.1", xForwardedFor: ["garbage"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["203.0.113.7, garbage"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["garbage, 203.0.113.7"], client: "203.0.113.7"),
        Case(peer: "10.0.0.1", xForwardedFor: ["999.1.1.1"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["1.2.3.4:99999"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["1.2.3.4:"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["[::1"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["[1.2.3.4]"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["1.2.3.4%eth0"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: ["１.２.３.４"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: [""], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", xForwardedFor: [",,,"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", forwarded: [#"for="1.2.3.4"#], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", forwarded: [#"for="1.2.3.4, 5.6.7.8""#], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", forwarded: [#";;;,,,=="\"#], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", forwarded: ["for=\"\\"], client: "10.0.0.1"),
        Case(peer: "10.0.0.1", forwarded: ["for=1.2.3.4\r\nX-Evil: 1"], client: "10.0.0.1"),
    ]

    @Test("Forwarded and X-Forwarded-For from trusted and untrusted peers, and garbage", arguments: cases)
    func resolve(_ example: Case) throws {
        let peer = try #require(AddressRange.address(in: Substring(example.peer)).map(AddressRange.unmapped))
        var headers = HTTPFields()
        for value in example.forwarded { headers.append(HTTPField(name: try #require(HTTPField.Name("Forwarded")), value: value)) }
        for value in example.xForwardedFor {
            headers.append(HTTPField(name: try #require(HTTPField.Name("X-Forwarded-For")), value: value))
        }
        #expect(Self.resolver.resolve(peer: peer, headers: headers) == example.client)
    }

    @Test("no peer address (a Unix socket): no client, whatever the headers")
    func noPeer() throws {
        let headers = HTTPFields([HTTPField(name: try #require(HTTPField.Name("X-Forwarded-For")), value: "203.0.113.7")])
        #expect(Self.resolver.resolve(peer: nil, headers: headers) == nil)
    }

    @Test("hostile headers: NUL bytes, huge lists, random bytes never crash and log only parsed addresses")
    func hostile() {
        #expect(ClientAddress.xForwardedFor(["1.2.3.4\u{0}9"]) == [nil])
        #expect(ClientAddress.forwardedFor(["for=\"1.2.3.4\u{0}\""]) == [nil])
        let many = Array(repeating: "203.0.113.7", count: 20_000).joined(separator: ",")
        #expect(ClientAddress.xForwardedFor([many]).count == ClientAddress.maxEntries)
        let elements = Array(repeating: "for=203.0.113.7;by=\"a,b\"", count: 20_000).joined(separator: ",")
        #expect(ClientAddress.forwardedFor([elements]).count == ClientAddress.maxEntries)
        let alphabet = Array("for=\"[]:;,\\ 0123456789.abcdef_-unknown\u{0}\t\u{FF11}é".unicodeScalars)
        var generator = SeededGenerator(state: 7)
        for _ in 0..<3_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
            for address in ClientAddress.forwardedFor([text]) + ClientAddress.xForwardedFor([text]) {
                if let address { #expect(address.count == 4 || address.count == 16) }
            }
            let client = Self.resolver.client(in: ClientAddress.forwardedFor([text]))
            if let client { #expect(AddressRange.address(in: Substring(ResolvedAddress(bytes: client).text)) == client) }
        }
    }

    @Test("address ranges: ADDRESS[/BITS], IPv4 and IPv6, IPv4-mapped", arguments: [
        ("10.0.0.0/8", "10.200.1.2", true), ("10.0.0.0/8", "11.0.0.1", false), ("10.1.2.3", "10.1.2.3", true),
        ("10.1.2.3", "10.1.2.4", false), ("0.0.0.0/0", "203.0.113.7", true), ("0.0.0.0/0", "::1", false),
        ("172.16.0.0/12", "172.31.255.255", true), ("172.16.0.0/12", "172.32.0.0", false),
        ("fd00::/8", "fd12:3456::1", true), ("fd00::/8", "fe80::1", false), ("::1", "::1", true),
        ("::ffff:10.0.0.0/104", "10.9.8.7", true), ("::ffff:10.0.0.0/104", "11.0.0.1", false),
        ("10.0.0.0/8", "::ffff:10.0.0.1", true), ("2001:db8::/32", "2001:db8:ffff::1", true),
    ])
    func ranges(_ range: String, _ address: String, _ inside: Bool) throws {
        let parsed = try #require(AddressRange(range))
        let bytes = try #require(AddressRange.address(in: Substring(address)))
        #expect(parsed.contains(bytes) == inside)
    }

    @Test("what is not an address range", arguments: [
        "", "/8", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "::1/129", "::ffff:1.2.3.4/95",
        "proxy.example", "10.0.0", "10.0.0.0.0", "1.2.3.4 ", "1.2.3.4/0008", "fe80::1%eth0", "[::1]", "١٠.0.0.0",
    ])
    func notRanges(_ text: String) {
        #expect(AddressRange(text) == nil)
    }
}
