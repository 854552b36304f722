import Foundation
import Hummingbird
import KingfisherServer

/// Runs `server` as `kf serve` runs it (its own Hummingbird application, from
/// `ImageServer.makeApplication`) on 127.0.0.1, a free port, while `body` runs with that port;
/// then stops it. This file imports Hummingbird and not Vapor, whose type names are the same.
func withKfServe<T: Sendable>(_ server: ImageServer, _ body: @Sendable (Int) async throws -> T) async throws -> T {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = server.makeApplication(host: "127.0.0.1", port: 0) { port in continuation.yield(port) }
    let running = Task {
        defer { continuation.finish() }
        try await app.runService()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else {
        _ = try await running.value
        throw CancellationError()
    }
    let result: Result<T, any Error>
    do {
        result = .success(try await body(port))
    } catch {
        result = .failure(error)
    }
    running.cancel()
    _ = await running.result
    return try result.get()
}
