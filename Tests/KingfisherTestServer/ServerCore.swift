import Foundation
import NIOCore
import KingfisherSynchronization

/// The state a ``TestHTTPServer`` shares with its connection handlers: routes, the request log and
/// the open connections. Every member is safe to call from any thread.
final class ServerCore: Sendable {
    private struct Route {
        var responses: [TestResponse]
        var served = 0
    }

    private struct CountWatcher {
        let path: String
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var routes: [String: Route] = [:]
        var requests: [String: [RecordedRequest]] = [:]
        var connections: [ObjectIdentifier: any Channel] = [:]
        var acceptedConnections = 0
        var isShutDown = false
        var nextWatcherID = 0
        var watchers: [Int: CountWatcher] = [:]
    }

    private let state = Mutex(State())

    /// What an unrouted path answers.
    static let notFound = TestResponse.status(404)

    func setRoute(_ path: String, _ responses: [TestResponse]) {
        state.withLock { $0.routes[path] = Route(responses: responses) }
    }

    /// Logs `request` and picks the response for it, advancing the route's sequence.
    func receive(_ request: RecordedRequest) -> TestResponse {
        let path = request.path
        let (response, ready) = state.withLock { state -> (TestResponse, [CountWatcher]) in
            state.requests[path, default: []].append(request)
            var response = Self.notFound
            if var route = state.routes[path], let last = route.responses.last {
                response = route.served < route.responses.count ? route.responses[route.served] : last
                route.served += 1
                state.routes[path] = route
            }
            let count = state.requests[path]?.count ?? 0
            let ready = state.watchers.filter { $0.value.path == path && $0.value.count <= count }
            for id in ready.keys {
                state.watchers[id] = nil
            }
            return (response, Array(ready.values))
        }
        for watcher in ready {
            watcher.continuation.resume()
        }
        return response
    }

    func requests(for path: String) -> [RecordedRequest] {
        state.withLock { $0.requests[path] ?? [] }
    }

    func waitUntilRequestCount(for path: String, reaches count: Int) async {
        let id = state.withLock { state -> Int in
            state.nextWatcherID += 1
            return state.nextWatcherID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { state -> Bool in
                    if (state.requests[path]?.count ?? 0) >= count || Task.isCancelled {
                        return true
                    }
                    state.watchers[id] = CountWatcher(path: path, count: count, continuation: continuation)
                    return false
                }
                if satisfied {
                    continuation.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// Tracks a newly accepted connection; `false` when the server is shutting down and the
    /// connection must be refused.
    func register(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let accepted = state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            state.connections[key] = channel
            state.acceptedConnections += 1
            return true
        }
        if accepted {
            channel.closeFuture.whenComplete { [self] _ in
                _ = state.withLock { $0.connections.removeValue(forKey: key) }
            }
        }
        return accepted
    }

    var acceptedConnectionCount: Int {
        state.withLock { $0.acceptedConnections }
    }

    var openConnectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Marks the server as shutting down; returns the connections to close, or `nil` if shutdown
    /// had already begun.
    func beginShutdown() -> [any Channel]? {
        state.withLock { state -> [any Channel]? in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            return Array(state.connections.values)
        }
    }
}
