import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking, byte-exact HTTP/1.1 client over a plain POSIX socket, for checking what the
/// ``TestHTTPServer`` puts on the wire.
///
/// Every call blocks the calling thread, so use it from a dedicated thread (see ``onThread(_:)``),
/// never from the Swift concurrency pool. Reads give up after `timeout` seconds with
/// ``RawHTTPError/timedOut`` so a test cannot hang. Not thread-safe: one thread per connection.
public final class RawHTTPConnection {
    /// How a response body was delimited on the wire.
    public enum Framing: Equatable, Sendable {
        /// By `Content-Length`.
        case contentLength(Int)
        /// By chunked transfer coding; the sizes of the data chunks in order.
        case chunked([Int])
        /// By the server closing the connection.
        case closed
        /// The response had no body by definition (`HEAD`, 204, 304).
        case none
    }

    /// A response as read from the socket.
    public struct Response: Sendable {
        /// The status code from the status line.
        public let status: Int
        /// Every header in order of arrival.
        public let headers: [(String, String)]
        /// The body bytes received (fewer than announced if the server closed early).
        public let body: Data
        /// How the body was delimited.
        public let framing: Framing
        /// Whether the connection reached end of stream while or after reading this response.
        public let sawEOF: Bool

        /// The first value of header `name`, compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// Whether the server has closed its side.
    public private(set) var sawEOF = false

    /// Connects to `127.0.0.1:port`; reads time out after `timeout` seconds.
    public init(port: Int, timeout: TimeInterval = 10) throws {
        // The descriptor is stored only once connected: a throwing init that had stored it would
        // run deinit too, and a second close could hit a descriptor the server reused meanwhile.
        fd = try Self.connectedSocket(port: port, timeout: timeout)
    }

    private static func connectedSocket(port: Int, timeout: TimeInterval) throws -> Int32 {
        #if canImport(Glibc)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let fd = socket(AF_INET, socketType, 0)
        guard fd >= 0 else { throw RawHTTPError.system("socket", errno) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw RawHTTPError.system("connect", code)
        }
        return fd
    }

    deinit {
        close(fd)
    }

    /// Sends `text` as is (use `\r\n` line ends).
    public func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            guard sent > 0 else { throw RawHTTPError.system("write", errno) }
            offset += sent
        }
    }

    /// Sends a `method` request for `path` with `Host` and `extraHeaders`.
    public func sendRequest(_ method: String = "GET", _ path: String, extraHeaders: [String] = []) throws {
        let lines = ["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1"] + extraHeaders
        try send(lines.joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// A response's status line and headers.
    public struct Head: Sendable {
        /// The status code from the status line.
        public let status: Int
        /// Every header in order of arrival.
        public let headers: [(String, String)]

        /// The first value of header `name`, compared case-insensitively.
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// Reads one whole response, following its framing; `method` tells whether a body may follow.
    public func readResponse(method: String = "GET") throws -> Response {
        try readBody(after: readHead(), method: method)
    }

    /// Reads a response's status line and headers, leaving its body unread.
    public func readHead() throws -> Head {
        guard let headEnd = try readUntil(Array("\r\n\r\n".utf8)) else { throw RawHTTPError.closedBeforeHead }
        let headText = String(decoding: take(headEnd + 4), as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { throw RawHTTPError.malformed(headText) }
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawHTTPError.malformed(headText) }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Head(status: status, headers: headers)
    }

    /// Reads the body that follows `head`, by its framing; `method` tells whether a body may follow.
    public func readBody(after head: Head, method: String = "GET") throws -> Response {
        let status = head.status
        let headers = head.headers
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            return Response(status: status, headers: headers, body: Data(), framing: .none, sawEOF: sawEOF)
        }
        if head.header("transfer-encoding")?.lowercased() == "chunked" {
            var body = Data()
            var sizes: [Int] = []
            while true {
                guard let lineEnd = try readUntil(Array("\r\n".utf8)) else { throw RawHTTPError.closedMidBody(body) }
                let sizeText = String(decoding: take(lineEnd + 2), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                guard let size = Int(sizeText, radix: 16) else { throw RawHTTPError.malformed(sizeText) }
                guard try fill(atLeast: size + 2) else { throw RawHTTPError.closedMidBody(body) }
                let chunk = take(size + 2)
                guard size > 0 else { break }
                sizes.append(size)
                body.append(contentsOf: chunk.prefix(size))
            }
            return Response(status: status, headers: headers, body: body, framing: .chunked(sizes), sawEOF: sawEOF)
        }
        if let lengthText = head.header("content-length"), let length = Int(lengthText) {
            // A short read (the server closed early) returns what arrived; `sawEOF` tells.
            _ = try fill(atLeast: length)
            let body = Data(take(min(length, buffer.count)))
            return Response(status: status, headers: headers, body: body, framing: .contentLength(length), sawEOF: sawEOF)
        }
        while try fill(atLeast: buffer.count + 1) {}
        return Response(status: status, headers: headers, body: Data(take(buffer.count)), framing: .closed, sawEOF: true)
    }

    /// Blocks until the server closes the connection; `true` if it did with no further bytes.
    public func waitForEOF() throws -> Bool {
        while try fill(atLeast: buffer.count + 1) {}
        return buffer.isEmpty
    }

    // MARK: - Buffering

    /// Reads until the buffer holds `count` bytes; `false` if the stream ended first.
    private func fill(atLeast count: Int) throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while buffer.count < count {
            if sawEOF { return false }
            let received = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if received == 0 {
                sawEOF = true
            } else if received < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { throw RawHTTPError.timedOut }
                if code == ECONNRESET {
                    sawEOF = true
                    continue
                }
                throw RawHTTPError.system("read", code)
            } else {
                buffer.append(contentsOf: chunk[0..<received])
            }
        }
        return true
    }

    /// The index where `marker` starts in the buffer, reading more as needed; `nil` on EOF.
    private func readUntil(_ marker: [UInt8]) throws -> Int? {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for start in searchFrom...(buffer.count - marker.count)
                where buffer[start..<start + marker.count].elementsEqual(marker) {
                    return start
                }
                searchFrom = buffer.count - marker.count + 1
            }
            guard try fill(atLeast: buffer.count + 1) else { return nil }
        }
    }

    private func take(_ count: Int) -> [UInt8] {
        let taken = Array(buffer.prefix(count))
        buffer.removeFirst(min(count, buffer.count))
        return taken
    }
}

/// Why a ``RawHTTPConnection`` call failed.
public enum RawHTTPError: Error, Sendable {
    /// A system call failed with this `errno`.
    case system(String, Int32)
    /// No byte arrived within the read timeout.
    case timedOut
    /// The connection ended before a complete response head.
    case closedBeforeHead
    /// The connection ended inside a chunked body; what arrived so far.
    case closedMidBody(Data)
    /// The bytes were not HTTP.
    case malformed(String)
}

/// Runs blocking `work` on a thread of its own and returns its result, keeping blocking socket
/// calls off the Swift concurrency pool.
public func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try work() })
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
