import Foundation
import KingfisherSynchronization
import KingfisherTestServer
import Testing

/// The test server's own behaviour, checked byte for byte with a raw socket client.
@Suite struct TestHTTPServerTests {
    static let payload = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    /// Starts a server, runs `body` against it under a watchdog, and always shuts it down.
    private func withServer(
        timeout: Duration = .seconds(20), _ body: @escaping @Sendable (TestHTTPServer) async throws -> Void
    ) async throws {
        let server = try await TestHTTPServer.start()
        do {
            try await withWatchdog(timeout) { try await body(server) }
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    /// One request on a fresh connection.
    private func fetch(_ server: TestHTTPServer, _ path: String, method: String = "GET") async throws
        -> RawHTTPConnection.Response
    {
        let port = server.port
        return try await onThread {
            let connection = try RawHTTPConnection(port: port)
            try connection.sendRequest(method, path)
            return try connection.readResponse(method: method)
        }
    }

    @Test func okSendsTheBodyWithItsLengthAndType() async throws {
        try await withServer { server in
            server.route("/image", .ok(Self.payload, contentType: "image/png"))
            let response = try await fetch(server, "/image")
            #expect(response.status == 200)
            #expect(response.framing == .contentLength(Self.payload.count))
            #expect(response.body == Self.payload)
            #expect(response.header("content-type") == "image/png")
            #expect(server.url("/image?x=1").absoluteString == "http://127.0.0.1:\(server.port)/image?x=1")
        }
    }

    @Test func statusCodesAndUnroutedPaths() async throws {
        try await withServer { server in
            server.route("/error", .status(503, body: Data("busy".utf8)))
            server.route("/empty", .status(204))
            let error = try await fetch(server, "/error")
            #expect(error.status == 503 && error.body == Data("busy".utf8))
            let empty = try await fetch(server, "/empty")
            #expect(empty.status == 204 && empty.header("content-length") == nil)
            let missing = try await fetch(server, "/nowhere")
            #expect(missing.status == 404 && missing.framing == .contentLength(0))
        }
    }

    @Test func redirectCarriesTheLocation() async throws {
        try await withServer { server in
            server.route("/old", .redirect(to: "/new", status: 301))
            server.route("/temp", .redirect(to: "http://127.0.0.1:1/elsewhere"))
            let moved = try await fetch(server, "/old")
            #expect(moved.status == 301 && moved.header("Location") == "/new")
            let temporary = try await fetch(server, "/temp")
            #expect(temporary.status == 302 && temporary.header("location") == "http://127.0.0.1:1/elsewhere")
        }
    }

    @Test func requestsAreCountedPerPathAndSequencesRepeatTheirLast() async throws {
        try await withServer { server in
            server.route("/flaky", [.status(500), .status(502), .ok(Data("fine".utf8))])
            var statuses: [Int] = []
            for index in 0..<4 {
                statuses.append(try await fetch(server, "/flaky?attempt=\(index)").status)
            }
            #expect(statuses == [500, 502, 200, 200])
            _ = try await fetch(server, "/other")
            #expect(server.requestCount(for: "/flaky") == 4)
            #expect(server.requestCount(for: "/other") == 1)
            #expect(server.requestCount(for: "/never-asked") == 0)
            let recorded = server.requests(for: "/flaky")
            #expect(recorded.map(\.uri) == (0..<4).map { "/flaky?attempt=\($0)" })
            #expect(recorded.allSatisfy { $0.method == "GET" && $0.httpVersion == "HTTP/1.1" })
            #expect(recorded.first?.header("HOST") == "127.0.0.1")
        }
    }

    @Test func headGetsHeadersOnlyAndTheConnectionStaysUsable() async throws {
        try await withServer { server in
            server.route("/image", .ok(Self.payload))
            let port = server.port
            let (head, get) = try await onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("HEAD", "/image")
                let head = try connection.readResponse(method: "HEAD")
                try connection.sendRequest("GET", "/image")
                return (head, try connection.readResponse())
            }
            #expect(head.status == 200 && head.header("content-length") == "\(Self.payload.count)")
            #expect(head.body.isEmpty)
            #expect(get.body == Self.payload)
            #expect(server.requests(for: "/image").map(\.method) == ["HEAD", "GET"])
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        try await withServer { server in
            server.route("/a", .ok(Data("first".utf8)))
            server.route("/b", .chunked(Data("second".utf8), chunkSize: 4))
            let port = server.port
            let bodies = try await onThread {
                let connection = try RawHTTPConnection(port: port)
                var bodies: [Data] = []
                for path in ["/a", "/b", "/a"] {
                    try connection.sendRequest("GET", path)
                    bodies.append(try connection.readResponse().body)
                }
                return bodies
            }
            #expect(bodies == [Data("first".utf8), Data("second".utf8), Data("first".utf8)])
            #expect(server.acceptedConnectionCount == 1)
        }
    }

    @Test func chunkedUsesChunkFramingWithoutContentLength() async throws {
        try await withServer { server in
            server.route("/chunks", .chunked(Self.payload, chunkSize: 4096))
            let response = try await fetch(server, "/chunks")
            #expect(response.framing == .chunked([4096, 4096, 1808]))
            #expect(response.header("content-length") == nil)
            #expect(response.header("transfer-encoding") == "chunked")
            #expect(response.body == Self.payload)
        }
    }

    @Test func closeMidBodyDeliversPartOfTheBodyThenEOF() async throws {
        try await withServer { server in
            server.route("/cut", .closeMidBody(Self.payload, after: 1234))
            let response = try await fetch(server, "/cut")
            #expect(response.framing == .contentLength(Self.payload.count))
            #expect(response.body == Self.payload.prefix(1234))
            #expect(response.sawEOF)
        }
    }

    @Test func wrongContentLengthSendsWhatItDocuments() async throws {
        try await withServer { server in
            server.route("/long", .wrongContentLength(Self.payload, declared: Self.payload.count + 100))
            server.route("/short", .wrongContentLength(Self.payload, declared: 100))
            let long = try await fetch(server, "/long")
            #expect(long.framing == .contentLength(Self.payload.count + 100))
            #expect(long.body == Self.payload && long.sawEOF)
            let port = server.port
            let (short, closed) = try await onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/short")
                return (try connection.readResponse(), try connection.waitForEOF())
            }
            #expect(short.body == Self.payload.prefix(100))
            #expect(closed)
        }
    }

    @Test func noContentLengthEndsTheBodyByClosing() async throws {
        try await withServer { server in
            server.route("/stream", .noContentLength(Self.payload).withHeaders([("X-Extra", "1")]))
            let response = try await fetch(server, "/stream")
            #expect(response.framing == .closed)
            #expect(response.header("connection") == "close" && response.header("x-extra") == "1")
            #expect(response.header("transfer-encoding") == nil && response.header("content-length") == nil)
            #expect(response.body == Self.payload)
        }
    }

    @Test func slowTricklesTheWholeBody() async throws {
        try await withServer { server in
            server.route("/slow", .slow(Self.payload, chunkSize: 2500, interval: 0.01))
            let response = try await fetch(server, "/slow")
            #expect(response.framing == .contentLength(Self.payload.count))
            #expect(response.body == Self.payload)
        }
    }

    @Test func withHeadersOverridesFactoryHeaders() async throws {
        try await withServer { server in
            server.route("/typed", .ok(Data([1]), contentType: "image/png").withHeaders([
                ("Content-Type", "image/webp"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
            ]))
            let response = try await fetch(server, "/typed")
            #expect(response.headers.filter { $0.0.lowercased() == "content-type" }.map(\.1) == ["image/webp"])
            #expect(response.headers.filter { $0.0 == "Set-Cookie" }.map(\.1) == ["a=1", "b=2"])
        }
    }
}

/// Gated responses, many clients at once and shutdown.
@Suite struct TestHTTPServerLifecycleTests {
    @Test func heldResponseWaitsForTheGate() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/held", .held(Data("late".utf8), gate: gate))
        let port = server.port
        try await withWatchdog(.seconds(20)) {
            async let response = onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/held")
                return try connection.readResponse()
            }
            await gate.waitUntilWaiting(count: 1)
            #expect(gate.waitingCount == 1)
            #expect(server.requestCount(for: "/held") == 1)
            gate.open()
            #expect(gate.waitingCount == 0)
            let body = try await response.body
            #expect(body == Data("late".utf8))
            // Once open, the gate lets later responses straight through.
            let again = try await onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/held")
                return try connection.readResponse()
            }
            #expect(again.body == Data("late".utf8))
        }
        try await server.shutdown()
    }

    @Test func heldBodySendsHeadersBeforeTheGateOpens() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/body", .heldBody(Data("payload".utf8), gate: gate))
        let port = server.port
        let (headersSeen, headersContinuation) = AsyncStream.makeStream(of: Bool.self)
        try await withWatchdog(.seconds(20)) {
            async let response = onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/body")
                let head = try connection.readHead()
                headersContinuation.yield(head.status == 200 && !gate.isOpen)
                return try connection.readBody(after: head)
            }
            var iterator = headersSeen.makeAsyncIterator()
            let headersFirst = await iterator.next()
            #expect(headersFirst == true)
            #expect(gate.waitingCount == 1)
            gate.open()
            let body = try await response.body
            #expect(body == Data("payload".utf8))
        }
        try await server.shutdown()
    }

    @Test func aDisconnectedClientStopsCountingOnTheGate() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        server.route("/held", .held(Data(), gate: gate))
        let port = server.port
        try await withWatchdog(.seconds(20)) {
            let connection = try await onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/held")
                return ConnectionBox(connection)
            }
            await gate.waitUntilWaiting(count: 1)
            connection.close()
            // The server learns of the close asynchronously; poll until it has (the watchdog bounds it).
            while gate.waitingCount > 0 || server.openConnectionCount > 0 {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        try await server.shutdown()
    }

    @Test func servesManyConcurrentConnections() async throws {
        let server = try await TestHTTPServer.start()
        let gate = TestGate()
        let clients = 60
        server.route("/together", .held(Data("x".utf8), gate: gate))
        let port = server.port
        try await withWatchdog(.seconds(30)) {
            try await withThrowingTaskGroup(of: Data.self) { group in
                for index in 0..<clients {
                    group.addTask {
                        try await onThread {
                            let connection = try RawHTTPConnection(port: port, timeout: 20)
                            try connection.sendRequest("GET", "/together?client=\(index)")
                            return try connection.readResponse().body
                        }
                    }
                }
                // Every client is connected and waiting at the same time before any is answered.
                await gate.waitUntilWaiting(count: clients)
                #expect(server.openConnectionCount == clients)
                gate.open()
                var bodies: [Data] = []
                for try await body in group {
                    bodies.append(body)
                }
                #expect(bodies.count == clients && bodies.allSatisfy { $0 == Data("x".utf8) })
            }
        }
        #expect(server.requestCount(for: "/together") == clients)
        #expect(server.acceptedConnectionCount == clients)
        try await server.shutdown()
    }

    @Test func shutdownClosesOpenConnectionsAndIsIdempotent() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/never", .never())
        server.route("/silent-after-shutdown", .never())
        let port = server.port
        try await withWatchdog(.seconds(20)) {
            async let closed = onThread {
                let connection = try RawHTTPConnection(port: port)
                try connection.sendRequest("GET", "/never")
                return try connection.waitForEOF()
            }
            await server.waitUntilRequestCount(for: "/never", reaches: 1)
            try await server.shutdown()
            let sawEOF = try await closed
            #expect(sawEOF)
            try await server.shutdown()
        }
        // The port is free again: a connection fails. Suites run in parallel, so a server another
        // one started meanwhile may have been given the same port. That one answers a path only
        // this test routes with a 404, or, if it is one of the fault tests' raw servers, closes or
        // resets the connection; this server, were it still listening, would hold the request.
        if let reconnected = try? RawHTTPConnection(port: port, timeout: 5) {
            do {
                try reconnected.sendRequest("GET", "/silent-after-shutdown")
                #expect(try reconnected.readHead().status == 404)
            } catch RawHTTPError.timedOut {
                Issue.record("something on the freed port held the request, as the shut-down server would")
            } catch {
                // Another suite's server that ends connections without answering.
            }
        }
        #expect(server.requestCount(for: "/silent-after-shutdown") == 0)
    }
}

/// Hands a connection from the thread that opened it to the test; only ``close()`` is used afterwards.
private final class ConnectionBox: Sendable {
    private let connection: Mutex<RawHTTPConnection?>

    init(_ connection: sending RawHTTPConnection) {
        self.connection = Mutex(connection)
    }

    func close() {
        connection.withLock { $0 = nil }
    }
}
