import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Refuses sources whose host resolves to an address the server must not reach (SSRF guard).
///
/// The host is resolved with the system resolver; when any of its addresses is loopback,
/// private, shared (CGNAT), link-local (which holds the cloud metadata address 169.254.169.254),
/// unspecified, multicast or reserved, the source is refused unless private addresses are
/// allowed or the address is in one of the `allowedAddresses` ranges. The downloader resolves the host again
/// when it connects; a resolver that answers differently the second time (DNS rebinding) is not
/// caught here, so deployments behind such resolvers should also filter egress.
struct AddressGuard: Sendable {
    let allowPrivateAddresses: Bool
    /// The internal addresses fetched anyway.
    let allowedRanges: [AddressRange]

    /// A guard allowing the ranges of `allowedAddresses` (`ADDRESS` or `ADDRESS/BITS`); an entry that
    /// is neither matches nothing.
    init(allowPrivateAddresses: Bool, allowedAddresses: Set<String>) {
        self.allowPrivateAddresses = allowPrivateAddresses
        self.allowedRanges = allowedAddresses.compactMap { AddressRange($0) }
    }

    /// Throws ``ImageServerError`` (403 for a forbidden address, 502 when the host does not resolve).
    func check(host: String) async throws {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = try await Self.resolve(bare)
        guard !addresses.isEmpty else {
            throw ImageServerError(.badGateway, "the source host '\(host)' has no address")
        }
        guard !allowPrivateAddresses else { return }
        for address in addresses where address.isInternal && !allows(address) {
            throw ImageServerError(.forbidden, "the source host '\(host)' resolves to \(address.text), a \(address.kind) address "
                + "the server does not fetch from unless allowed (kf serve --allow-address \(address.text))")
        }
    }

    /// Whether `address` is in one of the allowed ranges.
    func allows(_ address: ResolvedAddress) -> Bool {
        let bytes = AddressRange.unmapped(address.bytes)
        return allowedRanges.contains { $0.contains(bytes) }
    }

    /// The IPv4 and IPv6 addresses of `host`, resolved off the cooperative thread pool.
    static func resolve(_ host: String) async throws -> [ResolvedAddress] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try resolveBlocking(host) })
            }
        }
    }

    private static func resolveBlocking(_ host: String) throws -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else {
            throw ImageServerError(.badGateway, "the source host '\(host)' does not resolve")
        }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = ResolvedAddress(entry.pointee), !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        return addresses
    }
}
