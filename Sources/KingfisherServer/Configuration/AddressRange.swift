#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 network, `ADDRESS[/BITS]`, such as the addresses of trusted proxies.
///
/// An address with no `/BITS` is a range of one. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`)
/// are taken as the IPv4 address they carry, so a range of either spelling matches both.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The network's address with the bits past the prefix cleared: 4 bytes for IPv4, 16 for IPv6.
    let network: [UInt8]
    /// How many leading bits an address must share with the network's address to be in the range.
    public let prefixLength: Int

    /// The range written as `ADDRESS` or `ADDRESS/BITS` (`10.0.0.0/8`, `fd00::/8`, `127.0.0.1`);
    /// `nil` when it is neither, or BITS is past the address's length.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = parts.first.flatMap({ Self.address(in: $0) }) else { return nil }
        // An IPv4-mapped range (`::ffff:10.0.0.0/104`) keeps its meaning once the 96 bits of the mapping are dropped.
        let mappedBits = address.count == 4 && parts[0].contains(":") ? 96 : 0
        var prefix = address.count * 8
        if parts.count == 2 {
            guard parts[1].count <= 3, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(parts[1]),
                  (mappedBits...(mappedBits + prefix)).contains(bits)
            else { return nil }
            prefix = bits - mappedBits
        }
        self.prefixLength = prefix
        self.network = Self.masked(address, bits: prefix)
    }

    /// Whether `address` (4 or 16 bytes, as ``address(in:)`` gives) is in the range.
    func contains(_ address: [UInt8]) -> Bool {
        address.count == network.count && Self.masked(address, bits: prefixLength) == network
    }

    /// `ADDRESS/BITS`, with the address as `inet_ntop` writes it.
    public var description: String {
        "\(ResolvedAddress(bytes: network).text)/\(prefixLength)"
    }

    /// The bytes of an IPv4 or IPv6 address written alone (no port, brackets or zone): 4 bytes for
    /// IPv4 and for an IPv4-mapped IPv6 address, 16 for any other IPv6 address; `nil` for anything else.
    static func address(in text: Substring) -> [UInt8]? {
        // The longest IPv6 spelling is 45 characters; a NUL would end the C string early.
        guard !text.isEmpty, text.utf8.count <= 45, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let isIPv6 = text.contains(":")
        var bytes = [UInt8](repeating: 0, count: isIPv6 ? 16 : 4)
        let parsed = String(text).withCString { string in
            bytes.withUnsafeMutableBytes { inet_pton(isIPv6 ? AF_INET6 : AF_INET, string, $0.baseAddress) }
        }
        guard parsed == 1 else { return nil }
        return unmapped(bytes)
    }

    /// `bytes` with an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) turned into its 4 IPv4 bytes.
    static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return bytes
        }
        return Array(bytes[12..<16])
    }

    /// `bytes` with every bit past the first `bits` cleared.
    private static func masked(_ bytes: [UInt8], bits: Int) -> [UInt8] {
        var result = bytes
        for index in result.indices {
            let kept = min(max(bits - index * 8, 0), 8)
            result[index] &= kept == 8 ? 0xFF : ~(0xFF >> UInt8(kept))
        }
        return result
    }
}
