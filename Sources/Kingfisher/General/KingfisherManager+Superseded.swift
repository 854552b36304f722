import Foundation

extension KingfisherManager {
    /// Ends `retrieval` with `.imageSettingError(.notCurrentSourceTask)` when the image target it
    /// loads for has moved on to a newer request; `true` when it did.
    ///
    /// Called before each stage that would cost work (a disk read, processing a cached original,
    /// a download or a provider), so a superseded request stops as early as it can.
    func stopIfSuperseded(_ source: Source, _ retrieval: ManagedRetrieval) -> Bool {
        guard !retrieval.options.isCurrentSourceTask else { return false }
        retrieval.finish(.failure(.imageSettingError(
            reason: .notCurrentSourceTask(result: nil, error: nil, source: source))))
        return true
    }
}

/// A retry strategy that stops once the image target of the request has moved on, before
/// asking the wrapped strategy and again after its decision (which may come after a delay).
struct SupersededStopsRetry: RetryStrategy {
    let wrapped: any RetryStrategy
    let isCurrent: @Sendable () -> Bool

    func retry(context: RetryContext, retryHandler: @escaping @Sendable (RetryDecision) -> Void) {
        guard isCurrent() else {
            retryHandler(.stop)
            return
        }
        wrapped.retry(context: context) { decision in
            if case .retry = decision, !isCurrent() {
                retryHandler(.stop)
            } else {
                retryHandler(decision)
            }
        }
    }
}
