import Foundation

/// Kingfisher's other name for ``CallbackQueue``, used where a queue runs work rather than
/// callbacks (a ``LocalFileImageDataProvider``'s loading queue).
public typealias ExecutionQueue = CallbackQueue

/// A queue of operations that a ``CallbackQueue/operationQueue(_:)`` hands its blocks to.
///
/// Foundation's `OperationQueue` conforms, so `.operationQueue(queue)` runs callbacks as
/// operations of `queue`, honouring its `maxConcurrentOperationCount`.
public protocol CallbackOperationQueue: AnyObject, Sendable {
    /// The dispatch queue the operations run on, when one was set.
    var underlyingQueue: DispatchQueue? { get }

    /// Adds `block` as an operation.
    func addOperation(_ block: @Sendable @escaping () -> Void)
}

extension OperationQueue: CallbackOperationQueue {}
