import Foundation
import Synchronization

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
                    validators: loaded.validators, metrics: loaded.metrics, onWorkerThread: true)
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
        let shareKey = Self.shareKey(
            target, options: options, computedKey: provider.cacheKey.computedKey(with: options.processor.identifier))
        let stage = retrieval.beginStage()
        let subscription = provided.join(key: shareKey, callback: { [self] result in
            guard retrieval.endStage(stage) else { return }
            switch result {
            case .success(let fetched):
                cacheAndSucceed(
                    fetched.image, original: fetched.data, storeOriginal: true, source: source, retrieval, onWorkerThread: true)
            case .failure(let error):
                fail(source, error, retrieval)
            }
        }, start: { [self] finish in
            if let local = provider as? LocalFileImageDataProvider, case .dispatch(let queue) = local.loadingQueue {
                return readAndProcess(local, on: queue, options: options, finish: finish)
            }
            let work = Task {
                let read: Result<Data, any Error>
                do { read = .success(try await provider.data()) } catch { read = .failure(error) }
                processProvided(read, provider: provider, cancelled: Task.isCancelled, options: options, finish: finish)
            }
            return { work.cancel() }
        })
        let cancelled = KingfisherError.requestError(reason: .dataProviderCancelled(provider: provider))
        if !retrieval.setCancel(subscription.cancel, for: stage, error: cancelled) { subscription.cancel() }
    }
}

extension KingfisherManager {
    /// Reads a local file and processes it in one job on its loading queue: no task, and no
    /// second hand-off between reading and decoding. Returns how to cancel it (checked before the
    /// read, between its 1 MB pieces and before processing).
    private func readAndProcess(
        _ provider: LocalFileImageDataProvider, on queue: DispatchQueue, options: KingfisherParsedOptionsInfo,
        finish: @escaping @Sendable (Result<FetchedImage, KingfisherError>) -> Void
    ) -> @Sendable () -> Void {
        let cancelled = CancelFlag()
        let isCancelled: @Sendable () -> Bool = { cancelled.isSet }
        queue.async { [self] in
            let read = Result { try LocalFileImageDataProvider.read(provider.fileURL, isCancelled: isCancelled) }
            processProvided(read, provider: provider, cancelled: isCancelled(), options: options, finish: finish)
        }
        return { cancelled.set() }
    }

    /// Processes the bytes a provider gave, or ends with its failure; a cancelled call (or a
    /// provider that threw `CancellationError`) ends with `.dataProviderCancelled`.
    private func processProvided(
        _ read: Result<Data, any Error>, provider: any ImageDataProvider, cancelled: Bool,
        options: KingfisherParsedOptionsInfo,
        finish: @escaping @Sendable (Result<FetchedImage, KingfisherError>) -> Void
    ) {
        switch read {
        case .failure(let error) where !cancelled && !(error is CancellationError):
            finish(.failure(.imageSettingError(reason: .dataProviderError(provider: provider, error: error))))
        case .success(let data) where !cancelled:
            process(.data(data), options: options) { result in
                finish(result.map { FetchedImage(image: $0, data: data) })
            }
        case .failure, .success:
            finish(.failure(.requestError(reason: .dataProviderCancelled(provider: provider))))
        }
    }
}

/// A flag set once, from any thread: a cancellation request for work that polls it.
final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Whether ``set()`` was called.
    var isSet: Bool { value.load(ordering: .relaxed) }

    /// Raises the flag.
    func set() {
        value.store(true, ordering: .relaxed)
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
            return hopping(to: dispatchQueue, item, options)
        case .operationQueue(let operationQueue):
            let slot = DecodeFailure.slot
            return Self.run(on: operationQueue) { DecodeFailure.$slot.withValue(slot) { wrapped.process(item: item, options: options) } }
        case .mainAsync, .mainCurrentOrAsync:
            if MainQueue.isCurrent { return wrapped.process(item: item, options: options) }
            return hopping(to: .main, item, options)
        }
    }

    /// Runs the wrapped processor on `queue`, where the caller's decode-failure slot is bound again.
    private func hopping(to queue: DispatchQueue, _ item: ImageProcessItem, _ options: KingfisherParsedOptionsInfo) -> KFCrossPlatformImage? {
        let slot = DecodeFailure.slot
        return queue.sync {
            DecodeFailure.$slot.withValue(slot) { wrapped.process(item: item, options: options) }
        }
    }

    /// Runs `work` as an operation of `queue` and waits for its result.
    static func run(
        on queue: any CallbackOperationQueue, _ work: @escaping @Sendable () -> KFCrossPlatformImage?
    ) -> KFCrossPlatformImage? {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<KFCrossPlatformImage?>(nil)
        queue.addOperation {
            let image = work()
            result.withLock { $0 = image }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }
    }
}
