import Foundation
import KingfisherSynchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageDownloader {
    /// Downloads the image at `url` and processes it with the options' processor.
    ///
    /// Concurrent calls for the same request share one transfer; each gets its own task.
    /// `completionHandler` runs exactly once, on the options' `callbackQueue` (default
    /// `.untouch`: the downloader's thread), and so does `progressBlock` for each chunk.
    /// - Returns: The caller's task, to cancel it; `nil` when the download failed at once (the
    ///   request modifier returned `nil`, or the URL is not http/https) and `completionHandler`
    ///   already has the error.
    @discardableResult
    public func downloadImage(
        with url: URL,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        downloadImage(
            with: url, options: KingfisherParsedOptionsInfo(options),
            progressBlock: progressBlock, completionHandler: completionHandler)
    }

    /// Downloads the image at `url` with parsed options; see
    /// ``downloadImage(with:options:progressBlock:completionHandler:)-(_,KingfisherOptionsInfo?,_,_)``.
    @discardableResult
    public func downloadImage(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        let task = DownloadTask(
            url: url, options: options, downloader: self,
            progressBlock: progressBlock, completion: completionHandler)
        return startAttempt(task) ? task : nil
    }

    /// Downloads the image at `url` without progress reports; see
    /// ``downloadImage(with:options:progressBlock:completionHandler:)-(_,KingfisherOptionsInfo?,_,_)``.
    @discardableResult
    public func downloadImage(
        with url: URL,
        options: KingfisherOptionsInfo? = nil,
        completionHandler: (@Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void)? = nil
    ) -> DownloadTask? {
        downloadImage(
            with: url, options: KingfisherParsedOptionsInfo(options),
            progressBlock: nil, completionHandler: completionHandler)
    }

    /// Downloads the image at `url`; cancelling the Swift task cancels this caller only.
    ///
    /// Throws the ``KingfisherError`` of the download; `.requestError(.asyncTaskContextCancelled)`
    /// when the Swift task was already cancelled, `.requestError(.taskCancelled)` when it is
    /// cancelled during the download.
    public func downloadImage(
        with url: URL,
        options: KingfisherOptionsInfo? = nil,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> ImageLoadingResult {
        try await downloadImage(with: url, options: KingfisherParsedOptionsInfo(options), progressBlock: progressBlock)
    }

    /// Downloads the image at `url` with parsed options; see
    /// ``downloadImage(with:options:progressBlock:)-(_,KingfisherOptionsInfo?,_)``.
    public func downloadImage(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        progressBlock: DownloadProgressBlock? = nil
    ) async throws -> ImageLoadingResult {
        if Task.isCancelled { throw KingfisherError.requestError(reason: .asyncTaskContextCancelled) }
        let holder = Mutex<(task: DownloadTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ImageLoadingResult, any Error>) in
                let task = DownloadTask(url: url, options: options, downloader: self, progressBlock: progressBlock) { result in
                    continuation.resume(with: result)
                }
                let cancelled = holder.withLock { holder -> Bool in
                    holder.task = task
                    return holder.cancelled
                }
                if cancelled {
                    task.cancel()
                } else {
                    _ = startAttempt(task)
                }
            }
        } onCancel: {
            let task = holder.withLock { holder -> DownloadTask? in
                holder.cancelled = true
                return holder.task
            }
            task?.cancel()
        }
    }

    /// Builds the request, runs the modifier and joins or starts a transfer; `false` when the
    /// attempt failed at once (the error is delivered).
    func startAttempt(_ task: DownloadTask) -> Bool {
        let request = URLRequest(url: task.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: downloadTimeout)
        guard let modifier = task.options.requestModifier else {
            return join(task, request: request, modifier: nil)
        }
        if let modifier = modifier as? any ImageDownloadRequestModifier {
            let modified: URLRequest? = modifier.modified(for: request)
            guard let modified else {
                deliver(.failure(.requestError(reason: .emptyRequest)), to: task)
                return false
            }
            return join(task, request: modified, modifier: modifier)
        }
        Task {
            guard task.isActive else { return }
            guard let modified = await modifier.modified(for: request) else {
                deliver(.failure(.requestError(reason: .emptyRequest)), to: task)
                return
            }
            _ = join(task, request: modified, modifier: modifier)
        }
        return true
    }

    private func join(_ task: DownloadTask, request: URLRequest, modifier: (any AsyncImageDownloadRequestModifier)?) -> Bool {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            deliver(.failure(.requestError(reason: .invalidURL(request: request))), to: task)
            return false
        }
        guard let (session, token, isNew) = sessionTask(for: RequestKey(request, url: url), caller: task, make: {
            SessionDataTask(request: request, url: url, key: RequestKey(request, url: url), options: task.options, downloader: self)
        }) else {
            deliver(.failure(SessionDataTask.cancellationBeforeStart(url: url, downloader: self)), to: task)
            return false
        }
        if isNew { session.start() }
        if task.attach(to: session, token: token) {
            modifier?.onDownloadTaskStarted?(task)
        } else {
            session.cancel(token: token)
        }
        return true
    }

    /// Hands `result` to the caller, or asks its retry strategy first when it is a failure that
    /// is not a cancellation.
    func deliver(_ result: Result<ImageLoadingResult, KingfisherError>, to task: DownloadTask) {
        guard case .failure(let error) = result, !error.isTaskCancelled, !error.isNotModified,
              let strategy = task.options.retryStrategy, task.isActive else {
            task.finish(result)
            return
        }
        let context = task.retryContext.withLock { context -> RetryContext in
            if let context {
                context.recordFailure(error)
                return context
            }
            let made = RetryContext(url: task.url, source: task.source, error: error)
            context = made
            return made
        }
        guard task.detachForRetry() else {
            task.finish(result)
            return
        }
        let decided = LockedBox(false)
        strategy.retry(context: context) { [self] decision in
            let first = decided.withLock { decided -> Bool in
                defer { decided = true }
                return !decided
            }
            guard first else { return }
            switch decision {
            case .stop:
                task.finish(.failure(error))
            case .retry(let userInfo):
                context.recordRetry(userInfo: userInfo)
                guard task.isActive else { return }
                _ = startAttempt(task)
            }
        }
    }
}
