import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and what kind of network it belongs to.
struct ResolvedAddress: Sendable, Hashable {
    /// 4 bytes for IPv4, 16 for IPv6.
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The address of a `getaddrinfo` entry; `nil` for other families.
    init?(_ info: addrinfo) {
        guard let socketAddress = info.ai_addr else { return nil }
        switch info.ai_family {
        case AF_INET:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            self.bytes = withUnsafeBytes(of: address) { Array($0) }
        case AF_INET6:
            let address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            self.bytes = withUnsafeBytes(of: address) { Array($0) }
        default:
            return nil
        }
    }

    /// The address written as `inet_ntop` writes it (`127.0.0.1`, `::1`).
    var text: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether the address is not on the public internet.
    var isInternal: Bool { kind != "public" }

    /// `public`, or the kind of internal address: loopback, private, link-local...
    var kind: String {
        if bytes.count == 4 { return Self.kind(ipv4: bytes) }
        if bytes.allSatisfy({ $0 == 0 }) { return "unspecified" }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return "loopback" }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Self.kind(ipv4: Array(bytes[12..<16]))
        }
        if bytes[0] & 0xFE == 0xFC { return "private" }
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return "link-local" }
        if bytes[0] == 0xFF { return "multicast" }
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8 { return "documentation" }
        if bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xFF && bytes[3] == 0x9B {
            return Self.kind(ipv4: Array(bytes[12..<16]))
        }
        return "public"
    }

    private static func kind(ipv4 b: [UInt8]) -> String {
        switch (b[0], b[1]) {
        case (0, _): return "unspecified"
        case (10, _), (172, 16...31), (192, 168): return "private"
        case (127, _): return "loopback"
        case (169, 254): return b[2] == 169 && b[3] == 254 ? "metadata" : "link-local"
        case (100, 64...127): return "shared (CGNAT)"
        case (192, 0) where b[2] == 0: return "reserved"
        case (198, 18...19): return "benchmarking"
        case (224...239, _): return "multicast"
        case (240...255, _): return "reserved"
        default: return "public"
        }
    }
}
