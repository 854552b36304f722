import Foundation
import Synchronization

/// A TCP server on 127.0.0.1 that answers every connection with the same raw bytes, then closes.
///
/// The downloader fuzz target sets the bytes before each request, so whatever the fuzzer makes
/// (status line, headers, framing, body) reaches the HTTP client exactly as written. Connections
/// are served one at a time on one thread: read up to the end of the request's headers, write the
/// answer, close.
public final class LoopbackOrigin: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let listener: Int32
    private let answer = Mutex<[UInt8]>([])
    /// Connections answered so far.
    private let served = Atomic<Int>(0)

    /// Binds a free port on 127.0.0.1 and starts serving; `nil` when the socket cannot be made.
    public init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0, listen(fd, 64) == 0 else {
            close(fd)
            return nil
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// The bytes every later connection receives.
    public func answer(with bytes: [UInt8]) {
        answer.withLock { $0 = bytes }
    }

    /// How many connections have been answered.
    public var connectionsServed: Int { served.load(ordering: .relaxed) }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            // A client that connects and sends nothing must not hold the only serving thread.
            var wait = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            readRequestHead(connection)
            let bytes = answer.withLock { $0 }
            writeAll(bytes, to: connection)
            shutdown(connection, Int32(SHUT_WR))
            close(connection)
            served.add(1, ordering: .relaxed)
        }
    }

    /// Reads until the blank line that ends a request's headers, the peer closes, or 64 KiB.
    private func readRequestHead(_ connection: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        // How many bytes of "\r\n\r\n" the bytes so far end with. A plain scan: Foundation's
        // firstRange(of:) on [UInt8] allocates at every position, which under ASan made a
        // redirect with a long path take most of a second.
        var matched = 0
        var total = 0
        while total < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            total += count
            for byte in buffer[0..<count] {
                let expected: UInt8 = matched % 2 == 0 ? 13 : 10
                matched = byte == expected ? matched + 1 : (byte == 13 ? 1 : 0)
                if matched == 4 { return }
            }
        }
    }

    private func writeAll(_ bytes: [UInt8], to connection: Int32) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                send(connection, $0.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return }
            offset += written
        }
    }
}
