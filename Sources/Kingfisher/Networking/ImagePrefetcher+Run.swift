import Foundation

extension ImagePrefetcher {
    /// How one source ended.
    enum Outcome { case skipped, failed, completed }

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
            finish(index, .skipped)
        case .disk where state.withLock({ $0.alsoPrefetchToMemory }):
            var options = parsedOptions
            options.callbackQueue = .untouch
            cache.retrieveImage(forKey: source.cacheKey, options: options) { result in
                if case .success(let found) = result, found.image != nil {
                    self.finish(index, .skipped)
                } else {
                    self.retrieve(index)
                }
            }
        case .disk:
            finish(index, .skipped)
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
                case .success(let value): self.finish(index, value.cacheType.cached ? .skipped : .completed)
                case .failure: self.finish(index, .failed)
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
    func finish(_ index: Int, _ outcome: Outcome) {
        let lists = state.withLock { state -> (skipped: [Int], failed: [Int], completed: [Int], isFinal: Bool)? in
            guard state.active.remove(index) != nil else { return nil }
            state.tasks[index] = nil
            switch outcome {
            case .skipped: state.skipped.append(index)
            case .failed: state.failed.append(index)
            case .completed: state.completed.append(index)
            }
            let isFinal = state.active.isEmpty && state.nextIndex == items.count
            if isFinal { state.phase = .finished }
            return (state.skipped, state.failed, state.completed, isFinal)
        }
        guard let lists else { return }
        report(skipped: lists.skipped, failed: lists.failed, completed: lists.completed, isFinal: lists.isFinal)
        if !lists.isFinal { launchMore() }
    }

    /// Delivers one progress report, and the completion when `isFinal`, in order.
    func report(skipped: [Int], failed: [Int], completed: [Int], isFinal: Bool) {
        let callbackQueue = parsedOptions.callbackQueue
        reportQueue.async {
            let work: @Sendable () -> Void = {
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
