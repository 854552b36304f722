import Foundation

/// An image fetched and processed, with the bytes it was made from.
struct FetchedImage: Sendable {
    let image: KFCrossPlatformImage
    let data: Data
}

extension KingfisherManager {
    /// Downloads or provides `source`, processes it, caches it and delivers it.
    func fetch(_ source: Source, _ retrieval: ManagedRetrieval) {
        guard retrieval.isActive, !stopIfSuperseded(source, retrieval) else { return }
        switch source {
        case .network(let resource):
            download(resource, source: source, retrieval)
        case .provider(let provider):
            provide(provider, source: source, retrieval)
        }
    }

    /// Downloads `resource`; with `revalidating`, as a conditional request for that expired disk
    /// entry, whose `304` refreshes the entry instead of transferring a body.
    func download(_ resource: any Resource, source: Source, _ retrieval: ManagedRetrieval,
                  revalidating entry: ExpiredEntry? = nil) {
        var options = retrieval.options
        options.callbackQueue = .untouch
        if let entry {
            options.requestModifier = ConditionalRequestModifier(wrapped: options.requestModifier, validators: entry.validators)
        }
        if let queue = options.processingQueue {
            options.processor = QueuedProcessor(wrapped: options.processor, queue: queue)
        }
        if let checker = options.sourceTaskIdentifierChecker, let strategy = options.retryStrategy {
            options.retryStrategy = SupersededStopsRetry(wrapped: strategy, isCurrent: checker)
        }
        let stage = retrieval.beginStage()
        var progressive: ImageProgressiveProvider?
        var dataObserver: (@Sendable (Data) -> Void)?
        if let description = options.progressiveJPEG, let setter = options.progressiveImageSetter {
            let provider = ImageProgressiveProvider(progressive: description, options: retrieval.options, onImage: setter)
            progressive = provider
            dataObserver = { provider.append($0) }
        }
        let task = downloader(for: options).downloadImage(
            with: resource.downloadURL, options: options, source: source,
            progressBlock: retrieval.progress, dataObserver: dataObserver
        ) { [self, progressive] result in
            progressive?.finish()
            guard retrieval.endStage(stage) else { return }
            retrieval.link(nil)
            switch result {
            case .success(let loaded):
                cacheAndSucceed(
                    loaded.image, original: loaded.originalData, storeOriginal: true, source: source, retrieval,
                    validators: loaded.validators)
            case .failure(let error):
                if case .responseError(reason: .notModified(_, let fresh)) = error, let entry {
                    refresh(entry, with: fresh, source: source, retrieval)
                } else {
                    fail(source, error, retrieval)
                }
            }
        }
        retrieval.adopt(task, for: stage)
    }

    private func provide(_ provider: any ImageDataProvider, source: Source, _ retrieval: ManagedRetrieval) {
        let options = retrieval.options
        let target = targetCache(for: options)
        let shareKey = "\(ObjectIdentifier(target))|\(Self.decodingKey(options))|"
            + provider.cacheKey.computedKey(with: options.processor.identifier)
        let stage = retrieval.beginStage()
        let subscription = provided.join(key: shareKey, callback: { [self] result in
            guard retrieval.endStage(stage) else { return }
            switch result {
            case .success(let fetched):
                cacheAndSucceed(fetched.image, original: fetched.data, storeOriginal: true, source: source, retrieval)
            case .failure(let error):
                fail(source, error, retrieval)
            }
        }, start: { [self] finish in
            let work = Task {
                let data: Data
                do {
                    data = try await provider.data()
                } catch {
                    if error is CancellationError || Task.isCancelled {
                        finish(.failure(.requestError(reason: .dataProviderCancelled(provider: provider))))
                    } else {
                        finish(.failure(.imageSettingError(reason: .dataProviderError(provider: provider, error: error))))
                    }
                    return
                }
                guard !Task.isCancelled else {
                    finish(.failure(.requestError(reason: .dataProviderCancelled(provider: provider))))
                    return
                }
                process(.data(data), options: options) { result in
                    finish(result.map { FetchedImage(image: $0, data: data) })
                }
            }
            return { work.cancel() }
        })
        let cancelled = KingfisherError.requestError(reason: .dataProviderCancelled(provider: provider))
        if !retrieval.setCancel(subscription.cancel, for: stage, error: cancelled) { subscription.cancel() }
    }
}

extension ImageDownloader {
    /// Starts a download for the manager: like the public form, with `source` reported to the
    /// retry strategy through ``RetryContext/source``.
    func downloadImage(
        with url: URL,
        options: KingfisherParsedOptionsInfo,
        source: Source,
        progressBlock: DownloadProgressBlock?,
        dataObserver: (@Sendable (Data) -> Void)? = nil,
        completionHandler: @escaping @Sendable (Result<ImageLoadingResult, KingfisherError>) -> Void
    ) -> DownloadTask? {
        let task = DownloadTask(
            url: url, options: options, downloader: self, source: source,
            progressBlock: progressBlock, dataObserver: dataObserver, completion: completionHandler)
        return startAttempt(task) ? task : nil
    }
}

/// Runs a processor on a given queue while keeping its identifier, so the downloader's
/// processing honours the `processingQueue` option.
///
/// The downloader's thread waits for the queue: a `.mainAsync` or `.mainCurrentOrAsync`
/// processing queue needs a program that services the main queue.
struct QueuedProcessor: ImageProcessor {
    let wrapped: any ImageProcessor
    let queue: CallbackQueue

    var identifier: String { wrapped.identifier }

    func process(item: ImageProcessItem, options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        switch queue {
        case .untouch:
            return wrapped.process(item: item, options: options)
        case .dispatch(let dispatchQueue):
            return dispatchQueue.sync { wrapped.process(item: item, options: options) }
        case .mainAsync, .mainCurrentOrAsync:
            if Thread.isMainThread { return wrapped.process(item: item, options: options) }
            return DispatchQueue.main.sync { wrapped.process(item: item, options: options) }
        }
    }
}
