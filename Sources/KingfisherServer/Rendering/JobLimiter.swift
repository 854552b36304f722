import Foundation
import KingfisherSynchronization

/// Bounds the jobs running at once, with a bounded queue of waiting jobs behind them.
///
/// ``run(_:)`` starts the job when a slot is free, waits in line when the queue has room, and
/// refuses it with `503` and `Retry-After` when the queue is full too. A waiting job whose task is
/// cancelled leaves the line.
final class JobLimiter: Sendable {
    private struct State {
        var running = 0
        var waiting: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let maxRunning: Int
    private let maxWaiting: Int
    private let state = Mutex(State())

    /// A limiter running `maxRunning` jobs at once with `maxWaiting` more in line.
    init(maxRunning: Int, maxWaiting: Int) {
        self.maxRunning = max(1, maxRunning)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// Jobs running now.
    var runningCount: Int { state.withLock { $0.running } }
    /// Jobs waiting for a slot now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `job` in a slot; throws ``ImageServerError`` (503) when no slot and no place in line is free.
    func run<T: Sendable>(_ job: @Sendable () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await job()
    }

    private func acquire() async throws {
        enum Decision { case run, wait(UInt64), refuse }
        let decision: Decision = state.withLock { state in
            if state.running < maxRunning {
                state.running += 1
                return .run
            }
            guard state.waiting.count < maxWaiting else { return .refuse }
            state.nextID += 1
            return .wait(state.nextID)
        }
        switch decision {
        case .run:
            return
        case .refuse:
            throw ImageServerError(.serviceUnavailable, "too many images are being processed; try again shortly", retryAfter: 1)
        case .wait(let id):
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let cancelled = state.withLock { state -> Bool in
                        if Task.isCancelled { return true }
                        state.waiting.append((id, continuation))
                        return false
                    }
                    if cancelled { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                    guard let position = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiting.remove(at: position).continuation
                }
                continuation?.resume(throwing: CancellationError())
            }
        }
    }

    /// Frees a slot, handing it straight to the first job in line.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
