import Foundation
import KingfisherSynchronization

@MainActor
extension KingfisherWrapper where Base: KingfisherImageSettable {
    /// Loads and shows the image of `source`, as the callback form does, and returns its result.
    ///
    /// Named apart from `setImage(with:)` on purpose: Swift prefers an `async` overload inside
    /// async code, so an `async setImage(with:)` would turn every plain
    /// `imageView.kf.setImage(with: url)` written in a `Task` or an async function into a call
    /// that needs `try await`. Cancelling the Swift task cancels the request. A superseded request throws
    /// `.imageSettingError(.notCurrentSourceTask)`; a `nil` source throws `.emptySource`.
    @discardableResult
    public func setImageAsync(
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

    /// Loads and shows the image of `resource` and returns its result; see ``setImageAsync(with:placeholder:options:progressBlock:)-(Source?,_,_,_)``.
    @discardableResult
    public func setImageAsync(
        with resource: (any Resource)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await setImageAsync(with: resource?.convertToSource(), placeholder: placeholder, options: options,
                           progressBlock: progressBlock)
    }

    /// Loads and shows the image `provider` supplies and returns its result; see ``setImageAsync(with:placeholder:options:progressBlock:)-(Source?,_,_,_)``.
    @discardableResult
    public func setImageAsync(
        with provider: (any ImageDataProvider)?,
        placeholder: (any Placeholder)? = nil,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> RetrieveImageResult {
        try await setImageAsync(with: provider.map { Source.provider($0) }, placeholder: placeholder, options: options,
                           progressBlock: progressBlock)
    }
}
