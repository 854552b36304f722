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
        let ended = state.withLock { state -> (isFinal: Bool, finished: Finished?)? in
            guard state.active.remove(index) != nil else { return nil }
            state.tasks[index] = nil
            let started = state.startTimes.removeValue(forKey: index) ?? .now
            let finished = state.sourceFinished.map { Finished(block: $0, outcome: outcome, duration: .now - started) }
            let isFinal = state.active.isEmpty && state.nextIndex == items.count
            if isFinal { state.phase = .finished }
            return (isFinal, finished)
        }
        guard let ended else { return }
        let kind: ReportedLists.Kind
        switch outcome {
        case .skipped: kind = .skipped
        case .failed: kind = .failed
        case .completed: kind = .completed
        }
        report([(index, kind)], isFinal: ended.isFinal, finished: ended.finished.map { (index, $0) })
        if !ended.isFinal { launchMore() }
    }

    /// The report of one source's end, for ``ImagePrefetcher/sourceFinishedBlock``.
    struct Finished: Sendable {
        let block: PrefetcherSourceFinishedBlock
        let outcome: PrefetchOutcome
        let duration: Duration
    }

    /// Adds the sources that ended to the reported lists, then delivers the end of one source
    /// (when `finished` is given), one progress report, and the completion once a report said the
    /// prefetch is over (`isFinal`) and every source is in the lists.
    ///
    /// Reports go out one at a time and in order, without a queue of their own: the thread that
    /// finds none being delivered delivers every waiting one (on the callback queue), so a source
    /// that ends costs no hand-off. Each report adds only what is new to the lists, so a long
    /// prefetch costs the same per source at its end as at its start.
    func report(_ ended: [(index: Int, kind: ReportedLists.Kind)], isFinal: Bool, finished: (Int, Finished)?) {
        let pending = PendingReport(ended: ended, isFinal: isFinal, finished: finished)
        let delivers = reports.withLock { reports -> Bool in
            reports.waiting.append(pending)
            guard !reports.delivering else { return false }
            reports.delivering = true
            return true
        }
        guard delivers else { return }
        let wantsSources = sourceProgress != nil || sourceCompletion != nil
        let wantsResources = resourceProgress != nil || resourceCompletion != nil
        while true {
            let next = reports.withLock { reports -> (PendingReport, ReportedLists, isFinal: Bool)? in
                guard !reports.waiting.isEmpty else {
                    reports.delivering = false
                    return nil
                }
                let report = reports.waiting.removeFirst()
                for (index, kind) in report.ended {
                    reports.lists.append(items[index], as: kind, sources: wantsSources, resources: wantsResources)
                }
                reports.endedCount += report.ended.count
                if report.isFinal { reports.finalRequested = true }
                // The report of the source that found the prefetch over can be queued before
                // that of a source that ended just earlier on another thread, so the completion
                // goes with whichever report makes every source accounted for.
                let isFinal = reports.finalRequested && reports.endedCount == items.count
                if isFinal { reports.finalRequested = false }
                return (report, reports.lists, isFinal)
            }
            guard let (report, lists, isFinal) = next else { return }
            deliver(report, lists: lists, isFinal: isFinal)
        }
    }

    /// Runs the callbacks of one report on the callback queue.
    private func deliver(_ report: PendingReport, lists: ReportedLists, isFinal: Bool) {
        let finished = report.finished
        parsedOptions.callbackQueue.execute {
            if let (index, end) = finished { end.block(self.items[index].source, end.outcome, end.duration) }
            self.sourceProgress?(lists.skipped, lists.failed, lists.completed)
            self.resourceProgress?(lists.skippedResources, lists.failedResources, lists.completedResources)
            if isFinal {
                self.sourceCompletion?(lists.skipped, lists.failed, lists.completed)
                self.resourceCompletion?(lists.skippedResources, lists.failedResources, lists.completedResources)
            }
        }
    }
}

/// One report waiting to be delivered: the sources that ended with it, whether the prefetch was
/// over when it was made, and the end of one source for ``ImagePrefetcher/sourceFinishedBlock``.
struct PendingReport: Sendable {
    let ended: [(index: Int, kind: ReportedLists.Kind)]
    let isFinal: Bool
    let finished: (Int, ImagePrefetcher.Finished)?
}

/// The reports of a prefetcher: those waiting, whether a thread is delivering them, the lists
/// delivered so far, how many sources they account for, and whether the prefetch is over but its
/// completion still waits for a source's report.
struct ReportState: Sendable {
    var waiting: [PendingReport] = []
    var delivering = false
    var lists = ReportedLists()
    var endedCount = 0
    var finalRequested = false
}

/// The sources (and resources) a prefetcher has reported, by how they ended.
struct ReportedLists: Sendable {
    /// How a source ended, as the reports count it.
    enum Kind: Sendable {
        case skipped, failed, completed
    }

    var skipped: [Source] = []
    var failed: [Source] = []
    var completed: [Source] = []
    var skippedResources: [any Resource] = []
    var failedResources: [any Resource] = []
    var completedResources: [any Resource] = []

    /// Adds `item` to the lists of `kind` that someone reads.
    mutating func append(_ item: ImagePrefetcher.Item, as kind: Kind, sources: Bool, resources: Bool) {
        switch kind {
        case .skipped:
            if sources { skipped.append(item.source) }
            if resources, let resource = item.resource { skippedResources.append(resource) }
        case .failed:
            if sources { failed.append(item.source) }
            if resources, let resource = item.resource { failedResources.append(resource) }
        case .completed:
            if sources { completed.append(item.source) }
            if resources, let resource = item.resource { completedResources.append(resource) }
        }
    }
}
