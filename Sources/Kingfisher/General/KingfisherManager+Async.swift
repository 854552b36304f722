import Foundation
import KingfisherSynchronization

extension KingfisherManager {
    /// Retrieves the image of `source` through the cache ladder; cancelling the Swift task
    /// cancels this call (and only this call's share of any work).
    ///
    /// The options' `callbackQueue` is ignored: the result resumes the caller directly, so this
    /// never needs the main queue; `progressBlock` runs on the thread that received the bytes.
    /// - Throws: The ``KingfisherError`` of the retrieval;
    ///   `.requestError(.asyncTaskContextCancelled)` when the task was cancelled before it
    ///   started, `.requestError(.taskCancelled)` when it is cancelled while it runs.
    public func retrieveImage(
        with source: Source,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        var parsed = parsedOptions(options)
        parsed.callbackQueue = .untouch
        if Task.isCancelled { throw KingfisherError.requestError(reason: .asyncTaskContextCancelled) }
        let holder = Mutex<(task: DownloadTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RetrieveImageResult, any Error>) in
                let task = retrieveImage(
                    with: source, parsedOptions: parsed, progressBlock: progressBlock, downloadTaskUpdated: nil
                ) { result in
                    continuation.resume(with: result)
                }
                let cancelled = holder.withLock { holder -> Bool in
                    holder.task = task
                    return holder.cancelled
                }
                if cancelled { task?.cancel() }
            }
        } onCancel: {
            let task = holder.withLock { holder -> DownloadTask? in
                holder.cancelled = true
                return holder.task
            }
            task?.cancel()
        }
    }

    /// Retrieves the image of `resource`; a file URL is read from disk, not downloaded.
    ///
    /// The same as the async `Source` form with `resource.convertToSource()`.
    public func retrieveImage(
        with resource: any Resource,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await retrieveImage(with: resource.convertToSource(), options: options, progressBlock: progressBlock)
    }
}
