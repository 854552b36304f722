import Foundation
import KingfisherTestServer
#if canImport(Glibc)
import Glibc
#endif

/// A real `tinyproxy` (Debian's package) listening on 127.0.0.1, started by a test and stopped
/// with ``stop()``; it tunnels what the downloader sends it with `CONNECT`.
final class TinyProxy: Sendable {
    /// Why a proxy could not be started.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    let port: Int
    private let process: ChildProcess
    private let folder: URL

    /// Starts tinyproxy on a free port of 127.0.0.1 and returns once it accepts connections.
    ///
    /// Throws (so that the test fails, never skips) when the binary is not installed.
    static func start() async throws -> TinyProxy {
        guard let binary = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy"].first(where: FileManager.default.isExecutableFile) else {
            throw StartError(description: "tinyproxy is not installed: the proxy tests need it. "
                + "Install it with `apt-get install tinyproxy` (scripts/install-deps.sh tinyproxy).")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try freePort()
        // No ConnectPort line: CONNECT is allowed to every port (the test origins use ephemeral ones).
        let configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            MaxClients 32
            Allow 127.0.0.1
            LogLevel Warning
            LogFile "\(folder.path)/tinyproxy.log"
            PidFile "\(folder.path)/tinyproxy.pid"
            """
        let file = folder.appendingPathComponent("tinyproxy.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = try ChildProcess(binary, ["-d", "-c", file.path])
        let proxy = TinyProxy(port: port, process: process, folder: folder)
        let deadline = ContinuousClock.now + .seconds(10)
        while !canConnect(port: port) {
            guard ContinuousClock.now < deadline else {
                proxy.stop()
                throw StartError(description: "tinyproxy did not listen on 127.0.0.1:\(port) within 10 seconds")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return proxy
    }

    private init(port: Int, process: ChildProcess, folder: URL) {
        self.port = port
        self.process = process
        self.folder = folder
    }

    /// Stops the proxy and removes its files.
    func stop() {
        // SIGKILL: a child spawned from a test thread inherits that thread's signal mask, in which
        // SIGTERM may be blocked, and tinyproxy keeps nothing that needs a clean exit.
        process.signal(SIGKILL)
        _ = process.wait()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The `connectionProxyDictionary` entries that send `http` (and, with `https`, `https`) URLs here.
    func proxyDictionary(http: Bool = true, https: Bool = true) -> [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = [:]
        if http {
            dictionary["HTTPEnable"] = 1
            dictionary["HTTPProxy"] = "127.0.0.1"
            dictionary["HTTPPort"] = port
        }
        if https {
            dictionary["HTTPSEnable"] = 1
            dictionary["HTTPSProxy"] = "127.0.0.1"
            dictionary["HTTPSPort"] = port
        }
        return dictionary
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw StartError(description: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw StartError(description: "bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw StartError(description: "getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func canConnect(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
