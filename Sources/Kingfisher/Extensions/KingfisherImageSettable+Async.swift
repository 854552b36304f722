import Foundation
import Synchronization

@MainActor
extension KingfisherWrapper where Base: KingfisherImageSettable {
    /// Loads and shows the image of `source`, as the callback form does, and returns its result.
    ///
    /// Cancelling the Swift task cancels the request. A superseded request throws
    /// `.imageSettingError(.notCurrentSourceTask)`; a `nil` source throws `.emptySource`.
    @discardableResult
    public func setImage(
        with source: Source?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        let holder = Mutex<(task: DownloadTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RetrieveImageResult, any Error>) in
                let task = setImage(
                    with: source, placeholder: placeholder, options: options, progressBlock: progressBlock
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

    /// Loads and shows the image of `resource` and returns its result; see the `Source` form.
    @discardableResult
    public func setImage(
        with resource: (any Resource)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await setImage(with: resource?.convertToSource(), placeholder: placeholder, options: options,
                           progressBlock: progressBlock)
    }

    /// Loads and shows the image `provider` supplies and returns its result; see the `Source` form.
    @discardableResult
    public func setImage(
        with provider: (any ImageDataProvider)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await setImage(with: provider.map { Source.provider($0) }, placeholder: placeholder, options: options,
                           progressBlock: progressBlock)
    }
}
