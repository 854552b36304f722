import Foundation
import KingfisherSynchronization

/// One call of the manager's `retrieveImage`: its completion handler (run exactly once), its
/// cancellation, and the work it waits for now.
///
/// Every stage of the ladder registers how to stop itself with ``setCancel(_:for:)``; ``cancel()``
/// delivers `.requestError(.taskCancelled)` at once and stops that stage. Results arriving after
/// the call finished are dropped by ``finish(_:)``.
final class ManagedRetrieval: Sendable {
    private struct State {
        var finished = false
        var cancelled = false
        var current: (@Sendable () -> Void)?
        /// What a cancellation during the current stage reports, when not `.taskCancelled`.
        var cancellationError: KingfisherError?
        var stage: UInt64 = 0
        var task: DownloadTask?
        var failures: [KingfisherError.PropagationError] = []
        var alternatives: [Source]
        /// The source being tried now: the original one, then each alternative in turn.
        var currentSource: Source
    }

    /// The source the caller asked for.
    let originalSource: Source
    /// The parsed options of the call, the manager's defaults included.
    let options: KingfisherParsedOptionsInfo
    /// Called when the retrieval moves on to an alternative source.
    let downloadTaskUpdated: (@Sendable (DownloadTask?) -> Void)?
    private let progressBlock: DownloadProgressBlock?
    private let completion: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    private let state: Mutex<State>

    init(
        source: Source,
        options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock?,
        downloadTaskUpdated: (@Sendable (DownloadTask?) -> Void)?,
        completion: (@Sendable (Result<RetrieveImageResult, KingfisherError>) -> Void)?
    ) {
        originalSource = source
        self.options = options
        self.progressBlock = progressBlock
        self.downloadTaskUpdated = downloadTaskUpdated
        self.completion = completion
        state = Mutex(State(alternatives: options.alternativeSources ?? [], currentSource: source))
    }

    /// Whether the caller still waits for a result.
    var isActive: Bool { state.withLock { !$0.finished } }

    /// The task handed to the caller.
    var task: DownloadTask? { state.withLock { $0.task } }

    /// Records the task handed to the caller; it is marked finished with the retrieval.
    func attach(_ task: DownloadTask) {
        let finished = state.withLock { state -> Bool in
            if !state.finished { state.task = task }
            return state.finished
        }
        if finished { task.markFinished() }
    }

    /// Starts a stage of the ladder; pass the number to ``setCancel(_:for:)`` and ``endStage(_:)``.
    func beginStage() -> UInt64 {
        state.withLock { state in
            state.stage += 1
            state.current = nil
            state.cancellationError = nil
            return state.stage
        }
    }

    /// Records how to stop `stage`, and the error a cancellation during it reports (default
    /// `.requestError(.taskCancelled)`); `false` when the retrieval is already over and the caller
    /// must stop the stage itself. Does nothing for a stage that already ended.
    func setCancel(_ cancel: @escaping @Sendable () -> Void, for stage: UInt64, error: KingfisherError? = nil) -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            if state.stage == stage {
                state.current = cancel
                state.cancellationError = error
            }
            return true
        }
    }

    /// Ends `stage`; `true` when the caller still waits, so the ladder goes on.
    func endStage(_ stage: UInt64) -> Bool {
        state.withLock { state in
            if state.stage == stage { state.current = nil }
            return !state.finished
        }
    }

    /// Points the caller's task at the download it waits for now (`nil`: none).
    func link(_ download: DownloadTask?) {
        task?.link(download)
    }

    /// Points the caller's task at the download of `stage`, unless that stage already ended.
    func link(_ download: DownloadTask, for stage: UInt64) {
        let task = state.withLock { state -> DownloadTask? in
            state.stage == stage && state.current != nil ? state.task : nil
        }
        task?.link(download)
    }

    /// Makes `download` the work of `stage`: cancelling the retrieval cancels it and the caller's
    /// task points at it; when the stage is already over, the download is cancelled at once.
    func adopt(_ download: DownloadTask?, for stage: UInt64) {
        guard let download else { return }
        if setCancel(download.cancel, for: stage) {
            link(download, for: stage)
        } else {
            download.cancel()
        }
    }

    /// Records a failed source; returns the next alternative source to try, or `nil` when none
    /// is left (with every failure so far).
    func recordFailure(source: Source, error: KingfisherError) -> (next: Source?, failures: [KingfisherError.PropagationError]) {
        state.withLock { state in
            state.failures.append(.init(source: source, error: error))
            guard !state.alternatives.isEmpty else { return (nil, state.failures) }
            let next = state.alternatives.removeFirst()
            state.currentSource = next
            return (next, state.failures)
        }
    }

    /// Reports download progress on the callback queue unless the caller cancelled (a report
    /// queued before a normal finish still runs, ahead of the completion handler).
    var progress: DownloadProgressBlock? {
        guard let progressBlock else { return nil }
        let queue = options.callbackQueue
        return { [self] received, total in
            queue.execute {
                guard !self.state.withLock({ $0.cancelled }) else { return }
                progressBlock(received, total)
            }
        }
    }

    /// Delivers `result` on the callback queue; only the first call (or ``cancel()``) has an effect.
    func finish(_ result: Result<RetrieveImageResult, KingfisherError>) {
        guard close() != nil else { return }
        deliver(result)
    }

    /// Fails the call with the current stage's cancellation error and stops the stage running now.
    ///
    /// The error is `.requestError(.dataProviderCancelled)` while a provider supplies bytes, else
    /// `.requestError(.taskCancelled)` naming the download the call waits for (its transfer and
    /// token), or, outside a download, a transfer of the current source's URL that never started.
    /// The download's own cancellation error, which follows, is dropped.
    func cancel() {
        guard let closed = close(cancelling: true) else { return }
        deliver(.failure(closed.error ?? .requestError(reason: .asyncTaskContextCancelled)))
        closed.current?()
    }

    /// Ends the retrieval under the lock; the stage running then and, when `cancelling`, the error
    /// the cancellation reports; `nil` when it had ended.
    private func close(cancelling: Bool = false) -> (current: (@Sendable () -> Void)?, error: KingfisherError?)? {
        let closed = state.withLock { state -> (current: (@Sendable () -> Void)?, error: KingfisherError?, task: DownloadTask?, source: Source)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.cancelled = cancelling
            defer {
                state.current = nil
                state.task = nil
            }
            return (state.current, state.cancellationError, state.task, state.currentSource)
        }
        guard let closed else { return nil }
        var error = closed.error
        if cancelling, error == nil, let task = closed.task {
            // Read before the task is unlinked from the download it waits for.
            error = task.cancellationError(fallbackURL: closed.source.url ?? KingfisherManager.placeholderURL)
        }
        closed.task?.link(nil)
        closed.task?.markFinished()
        return (closed.current, error)
    }

    private func deliver(_ result: Result<RetrieveImageResult, KingfisherError>) {
        guard let completion else { return }
        options.callbackQueue.execute { completion(result) }
    }
}

/// Runs a block after a number of ticks, once.
final class Countdown: Sendable {
    private let remaining: Mutex<Int>
    private let block: @Sendable () -> Void

    /// Runs `block` on the `count`-th ``tick()``.
    init(_ count: Int, then block: @escaping @Sendable () -> Void) {
        remaining = Mutex(count)
        self.block = block
    }

    /// Counts one; the tick that reaches zero runs the block.
    func tick() {
        let done = remaining.withLock { remaining -> Bool in
            remaining -= 1
            return remaining == 0
        }
        if done { block() }
    }
}
