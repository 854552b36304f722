import Foundation
import KingfisherSynchronization

/// Runs a job with a time limit that holds even when the job does not react to cancellation.
enum Deadline {
    /// The job's result, or `onTimeout` thrown after `seconds`; the job is cancelled then, and
    /// whatever it produces later is dropped.
    static func run<T: Sendable>(
        seconds: TimeInterval, onTimeout: any Error, _ job: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.start(continuation)
                let jobTask = Task {
                    do { race.finish(.success(try await job())) } catch { race.finish(.failure(error)) }
                }
                let timerTask = Task {
                    guard (try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))) != nil else { return }
                    race.finish(.failure(onTimeout))
                }
                race.attach(jobTask, timerTask)
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }

    /// The first of the job, the timer and a cancellation to finish resumes the caller and cancels the rest.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var pending: Result<T, any Error>?
            var tasks: [Task<Void, Never>] = []
            var finished = false
        }

        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>) {
            let pending = state.withLock { state -> Result<T, any Error>? in
                if let pending = state.pending { return pending }
                state.continuation = continuation
                return nil
            }
            if let pending { continuation.resume(with: pending) }
        }

        func attach(_ tasks: Task<Void, Never>...) {
            let finished = state.withLock { state -> Bool in
                state.tasks = tasks
                return state.finished
            }
            if finished { tasks.forEach { $0.cancel() } }
        }

        func finish(_ result: Result<T, any Error>) {
            let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
                guard !state.finished else { return (nil, []) }
                state.finished = true
                if state.continuation == nil { state.pending = result }
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            tasks.forEach { $0.cancel() }
            continuation?.resume(with: result)
        }
    }
}
