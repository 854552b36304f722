import Foundation

extension ImagePrefetcher {
    /// Takes sources while there are free slots. Only one thread runs the loop at a time; a
    /// caller finding it running leaves, since the loop re-reads the slots under the lock.
    func launchMore() {
        let isOwner = state.withLock { state -> Bool in
            guard !state.launching else { return false }
            state.launching = true
            return true
        }
        guard isOwner else { return }
        while true {
            let next = state.withLock { state -> Int? in
                guard state.phase == .running, state.nextIndex < items.count,
                      state.active.count < state.maxConcurrentDownloads else {
                    state.launching = false
                    return nil
                }
                let index = state.nextIndex
                state.nextIndex += 1
                state.active.insert(index)
                state.startTimes[index] = .now
                return index
            }
            guard let next else { return }
            begin(next)
        }
    }

    /// Skips the source at `index` when it is cached, otherwise retrieves it.
    func begin(_ index: Int) {
        let source = items[index].source
        guard !parsedOptions.forceRefresh else { return retrieve(index) }
        let cache = parsedOptions.targetCache ?? manager.cache
        let cachedType = cache.imageCachedType(
            forKey: source.cacheKey, processorIdentifier: parsedOptions.processor.identifier,
            forcedExtension: parsedOptions.forcedExtension)
        switch cachedType {
        case .memory:
            finish(index, .skipped(.memory))
        case .disk where state.withLock({ $0.alsoPrefetchToMemory }):
            var options = parsedOptions
            options.callbackQueue = .untouch
            cache.retrieveImage(forKey: source.cacheKey, options: options) { result in
                if case .success(let found) = result, found.image != nil {
                    self.finish(index, .skipped(.disk))
                } else {
                    self.retrieve(index)
                }
            }
        case .disk:
            finish(index, .skipped(.disk))
        case .none:
            retrieve(index)
        }
    }

    /// Retrieves the source at `index` through the manager.
    func retrieve(_ index: Int) {
        let task = manager.retrieveImage(
            with: items[index].source, options: retrievalOptions, progressBlock: nil,
            downloadTaskUpdated: { [weak self] task in self?.track(task, for: index) },
            completionHandler: { result in
                switch result {
                case .success(let value): self.finish(index, value.cacheType.cached ? .skipped(value.cacheType) : .completed)
                case .failure(let error): self.finish(index, .failed(error))
                }
            })
        track(task, for: index)
    }

    /// Remembers the task of a running source, so ``stop()`` can cancel it.
    func track(_ task: DownloadTask?, for index: Int) {
        let cancelNow = state.withLock { state -> Bool in
            guard let task else {
                state.tasks[index] = nil
                return false
            }
            guard state.active.contains(index) else { return state.phase == .finished }
            state.tasks[index] = task
            return false
        }
        if cancelNow { task?.cancel() }
    }

    /// Records how the source at `index` ended, reports, and starts the next one.
    func finish(_ index: Int, _ outcome: PrefetchOutcome) {
        typealias Lists = (skipped: [Int], failed: [Int], completed: [Int], isFinal: Bool, finished: Finished?)
        let lists = state.withLock { state -> Lists? in
            guard state.active.remove(index) != nil else { return nil }
            state.tasks[index] = nil
            let started = state.startTimes.removeValue(forKey: index) ?? .now
            let finished = state.sourceFinished.map { Finished(block: $0, outcome: outcome, duration: .now - started) }
            switch outcome {
            case .skipped: state.skipped.append(index)
            case .failed: state.failed.append(index)
            case .completed: state.completed.append(index)
            }
            let isFinal = state.active.isEmpty && state.nextIndex == items.count
            if isFinal { state.phase = .finished }
            return (state.skipped, state.failed, state.completed, isFinal, finished)
        }
        guard let lists else { return }
        report(skipped: lists.skipped, failed: lists.failed, completed: lists.completed, isFinal: lists.isFinal,
               finished: lists.finished.map { (index, $0) })
        if !lists.isFinal { launchMore() }
    }

    /// The report of one source's end, for ``ImagePrefetcher/sourceFinishedBlock``.
    struct Finished: Sendable {
        let block: PrefetcherSourceFinishedBlock
        let outcome: PrefetchOutcome
        let duration: Duration
    }

    /// Delivers the end of one source (when `finished` is given), one progress report, and the
    /// completion when `isFinal`, in order.
    func report(skipped: [Int], failed: [Int], completed: [Int], isFinal: Bool, finished: (Int, Finished)?) {
        let callbackQueue = parsedOptions.callbackQueue
        reportQueue.async {
            let work: @Sendable () -> Void = {
                if let (index, end) = finished { end.block(self.items[index].source, end.outcome, end.duration) }
                let sources = { (indexes: [Int]) in indexes.map { self.items[$0].source } }
                let resources = { (indexes: [Int]) in indexes.compactMap { self.items[$0].resource } }
                self.sourceProgress?(sources(skipped), sources(failed), sources(completed))
                self.resourceProgress?(resources(skipped), resources(failed), resources(completed))
                if isFinal {
                    self.sourceCompletion?(sources(skipped), sources(failed), sources(completed))
                    self.resourceCompletion?(resources(skipped), resources(failed), resources(completed))
                }
            }
            callbackQueue.execute(work)
        }
    }
}
