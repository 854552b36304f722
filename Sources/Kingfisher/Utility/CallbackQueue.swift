import Foundation

/// Where a completion handler runs.
///
/// On Linux the main queue only runs work in a program that services it (an async `main`,
/// `dispatchMain()` or a running RunLoop). A command-line tool or server that blocks its main
/// thread never sees `.mainAsync` callbacks, which is why the cache and the manager default to
/// `.untouch`.
public enum CallbackQueue: Sendable {
    /// Always dispatched asynchronously to the main queue.
    case mainAsync
    /// Run at once when already on the main queue (``MainQueue/isCurrent``), else dispatched to it.
    case mainCurrentOrAsync
    /// Run on whatever thread finished the work.
    case untouch
    /// Dispatched asynchronously to this queue.
    case dispatch(DispatchQueue)
    /// Added as an operation to this queue (an `OperationQueue`, for one).
    case operationQueue(any CallbackOperationQueue)

    /// Runs `block` as this queue says.
    public func execute(_ block: @escaping @Sendable () -> Void) {
        switch self {
        case .mainAsync:
            DispatchQueue.main.async(execute: block)
        case .mainCurrentOrAsync:
            if MainQueue.isCurrent {
                block()
            } else {
                DispatchQueue.main.async(execute: block)
            }
        case .untouch:
            block()
        case .dispatch(let queue):
            queue.async(execute: block)
        case .operationQueue(let queue):
            queue.addOperation(block)
        }
    }

    /// Whether blocks given to this queue may run on the main thread.
    var mayRunOnMain: Bool {
        switch self {
        case .mainAsync, .mainCurrentOrAsync: true
        case .untouch: false
        case .dispatch(let queue): queue === DispatchQueue.main
        case .operationQueue(let queue): queue.underlyingQueue === DispatchQueue.main || queue === OperationQueue.main
        }
    }
}
