import Foundation
import KingfisherSynchronization

/// A child process started with `posix_spawn`, for tests that run `kf`, the cache stress tool or a
/// system tool.
///
/// The tests do not use Foundation's `Process`: on Linux its `run()` looks for the highest open
/// descriptor by copying whole `dirent` records out of `/proc/self/fd`, reading past the short
/// ones (swift-corelibs-foundation issue 5472, fixed after 6.3). AddressSanitizer reports that
/// read, and when the last record sits at the end of a mapping it crashes the test process.
public final class ChildProcess: Sendable {
    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case discard
        /// The test process's own stream.
        case inherit
        /// A stream whose read end is ``standardOutput`` or ``standardError``.
        case pipe
        /// The same place as the child's standard output (only for standard error).
        case standardOutput
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)

        /// Whether a signal ended the child.
        public var wasSignalled: Bool {
            if case .signalled = self { true } else { false }
        }

        /// The exit status, or the signal's number for a signalled child (as `Process` reports it).
        public var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            }
        }
    }

    /// Everything a finished child wrote, and how it ended.
    public struct Run: Sendable {
        public let termination: Termination
        public let standardOutput: Data
        public let standardError: Data
    }

    /// The child's process ID.
    public let pid: pid_t
    /// The read end of the child's standard output, when it is ``Output/pipe``.
    public let standardOutput: FileHandle?
    /// The read end of the child's standard error, when it is ``Output/pipe``.
    public let standardError: FileHandle?
    /// Set once the child is reaped; the lock also keeps a signal from reaching a reused pid.
    private let termination = Mutex<Termination?>(nil)

    /// Starts `executable` with `arguments`, and `environment` (the test process's when nil).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        standardOutput outputMode: Output = .discard, standardError errorMode: Output = .discard
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func route(_ mode: Output, to target: Int32) throws -> FileHandle? {
            switch mode {
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                return nil
            case .inherit:
                return nil
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, target)
                return nil
            case .pipe:
                // A socket pair, because it can be made close-on-exec atomically (Glibc's module
                // lacks pipe2): a child another test spawns meanwhile must not inherit an end.
                var ends: [Int32] = [0, 0]
                let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
                guard socketpair(AF_UNIX, type, 0, &ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                return FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
            }
        }
        do {
            standardOutput = try route(outputMode, to: STDOUT_FILENO)
            standardError = try route(errorMode, to: STDERR_FILENO)
        } catch {
            parentEnds.forEach { close($0) }
            throw error
        }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let environmentStrings = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { environmentStrings?.forEach { free($0) } }
        var child: pid_t = 0
        let status = if let environmentStrings {
            posix_spawn(&child, executable, &actions, nil, argv, environmentStrings)
        } else {
            posix_spawn(&child, executable, &actions, nil, argv, environ)
        }
        guard status == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO, userInfo: [NSFilePathErrorKey: executable])
        }
        pid = child
    }

    /// Runs `executable` to the end, collecting both output streams; a child still running after
    /// `timeLimit` seconds is sent SIGTERM.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        mergingStandardError: Bool = false, timeLimit: Double? = nil
    ) throws -> Run {
        let child = try ChildProcess(
            executable, arguments, environment: environment,
            standardOutput: .pipe, standardError: mergingStandardError ? .standardOutput : .pipe)
        if let timeLimit {
            DispatchQueue.global().asyncAfter(deadline: .now() + timeLimit) { child.signal(SIGTERM) }
        }
        let errorText = Mutex(Data())
        let errorRead = DispatchGroup()
        if let standardError = child.standardError {
            DispatchQueue.global().async(group: errorRead) {
                let data = standardError.readDataToEndOfFile()
                errorText.withLock { $0 = data }
            }
        }
        let output = child.standardOutput?.readDataToEndOfFile() ?? Data()
        errorRead.wait()
        let termination = child.wait()
        return Run(termination: termination, standardOutput: output, standardError: errorText.withLock { $0 })
    }

    /// ``run(_:_:environment:mergingStandardError:timeLimit:)`` from async code: the blocking
    /// reads and the wait run on a Dispatch thread, so the caller's thread (one of the few that
    /// run every test's async work) stays free while the child runs.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        mergingStandardError: Bool = false, timeLimit: Double? = nil
    ) async throws -> Run {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try run(executable, arguments, environment: environment,
                            mergingStandardError: mergingStandardError, timeLimit: timeLimit) as Run
                })
            }
        }
    }

    /// Sends `signal` unless the child has already been reaped.
    public func signal(_ signal: Int32) {
        termination.withLock { ended in
            if ended == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits for the child to end (blocking) and reaps it; later calls give the same answer.
    @discardableResult
    public func wait() -> Termination {
        if let ended = termination.withLock({ $0 }) { return ended }
        // Wait without reaping, so the pid stays ours until the lock is held for the reap.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        return termination.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let result: Termination = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
            ended = result
            return result
        }
    }

    /// Waits for the child to end without blocking the caller's thread.
    public func exited() async -> Termination {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.wait()) }
        }
    }

    /// Hands every chunk of standard output to `handler` on a thread of its own, until the end.
    public func readStandardOutput(_ handler: @escaping @Sendable (Data) -> Void) {
        guard let standardOutput else { return }
        let thread = Thread {
            while true {
                let chunk = standardOutput.availableData
                if chunk.isEmpty { return }
                handler(chunk)
            }
        }
        thread.start()
    }
}
