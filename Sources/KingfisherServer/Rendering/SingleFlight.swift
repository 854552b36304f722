import KingfisherSynchronization

/// Runs one job per key at a time: callers asking for a key already in flight wait for its result.
///
/// The job runs in its own task, so a caller that goes away never cancels it for the others.
final class SingleFlight<Value: Sendable>: Sendable {
    private let tasks = Mutex<[String: Task<Value, any Error>]>([:])

    /// Keys in flight now.
    var inFlightCount: Int { tasks.withLock { $0.count } }

    /// The result of the job for `key`, starting `job` when none is in flight; `joined` is true
    /// when this caller shared a job another caller started.
    func value(forKey key: String, job: @escaping @Sendable () async throws -> Value) async throws -> (value: Value, joined: Bool) {
        let (task, joined) = tasks.withLock { tasks -> (Task<Value, any Error>, Bool) in
            if let existing = tasks[key] { return (existing, true) }
            let task = Task<Value, any Error> {
                defer { self.finish(key) }
                return try await job()
            }
            tasks[key] = task
            return (task, false)
        }
        return (try await task.value, joined)
    }

    private func finish(_ key: String) {
        _ = tasks.withLock { $0.removeValue(forKey: key) }
    }
}
