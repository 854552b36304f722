import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One address of a network interface, as ``NetworkMonitor`` judges it.
struct NetworkInterface: Sendable, Hashable {
    /// The interface's name (`eth0`, `wlan0`, `lo`).
    var name: String
    /// `IFF_UP` and `IFF_RUNNING` are set.
    var isUpAndRunning: Bool
    /// `IFF_LOOPBACK` is set.
    var isLoopback: Bool
    /// The kind of address this entry carries.
    var address: Address

    /// What kind of address an entry has.
    enum Address: Sendable, Hashable {
        /// None (a link-level entry).
        case none
        /// An IPv4 address.
        case ipv4
        /// An IPv6 address; `linkLocal` for `fe80::/10`, which reaches no other network.
        case ipv6(linkLocal: Bool)
    }

    /// Whether this entry makes the network usable: a running interface other than loopback with
    /// an IPv4 or a routable IPv6 address.
    var isUsable: Bool {
        guard isUpAndRunning, !isLoopback else { return false }
        switch address {
        case .ipv4, .ipv6(linkLocal: false): return true
        case .none, .ipv6(linkLocal: true): return false
        }
    }

    /// Whether any of `interfaces` makes the network usable.
    static func anyUsable(_ interfaces: [NetworkInterface]) -> Bool {
        interfaces.contains(where: \.isUsable)
    }

    /// The system's interface addresses, from `getifaddrs`; empty when it fails.
    @Sendable static func current() -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [NetworkInterface] = []
        var cursor = list
        while let entry = cursor {
            let flags = Int32(bitPattern: entry.pointee.ifa_flags)
            var address = Address.none
            if let sockaddrPointer = entry.pointee.ifa_addr {
                switch Int32(sockaddrPointer.pointee.sa_family) {
                case AF_INET:
                    address = .ipv4
                case AF_INET6:
                    let linkLocal = sockaddrPointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        let bytes = $0.pointee.sin6_addr.__in6_u.__u6_addr8
                        return bytes.0 == 0xFE && (bytes.1 & 0xC0) == 0x80
                    }
                    address = .ipv6(linkLocal: linkLocal)
                default:
                    break
                }
            }
            result.append(NetworkInterface(
                name: String(cString: entry.pointee.ifa_name),
                isUpAndRunning: flags & Int32(IFF_UP) != 0 && flags & Int32(IFF_RUNNING) != 0,
                isLoopback: flags & Int32(IFF_LOOPBACK) != 0,
                address: address))
            cursor = entry.pointee.ifa_next
        }
        return result
    }
}
